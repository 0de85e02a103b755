import { pbkdf2, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>
const pbkdf2Async = promisify(pbkdf2)

/** scrypt cost parameters (OWASP's minimum recommendation is N=2^17, r=8, p=1). */
export interface ScryptParams {
  readonly N: number
  readonly r: number
  readonly p: number
}
export const DEFAULT_SCRYPT: ScryptParams = Object.freeze({ N: 2 ** 15, r: 8, p: 1 })
const KEY_LENGTH = 32

function maxmem(params: ScryptParams): number {
  return 128 * params.N * params.r * 2 + 1024 * 1024
}

/** Hashes a password as `scrypt$N$r$p$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password.normalize('NFKC'), salt, KEY_LENGTH, { ...params, maxmem: maxmem(params) })
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$')
}

/**
 * Verifies a password against a stored hash in constant time. Understands gatehouse's
 * `scrypt$…` and Django's `pbkdf2_sha256$<iterations>$<salt>$<hash b64>`, so users
 * moved from Django keep their passwords. Unknown or unusable (`!…`) hashes never match.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  try {
    return await verifyEncoded(password, encoded)
  } catch {
    // A corrupt stored hash (scrypt parameters Node refuses, say) is "no match", never a 500.
    return false
  }
}

/** True for a hash `verifyPassword` can check (scrypt or Django PBKDF2); false for unusable ones (`!…`). */
export function isUsableHash(encoded: string): boolean {
  const parts = encoded.split('$')
  return (parts[0] === 'scrypt' && parts.length === 6) || (parts[0] === 'pbkdf2_sha256' && parts.length === 4)
}

/**
 * Django's `must_update`: true when a hash that just verified should be replaced by a
 * fresh one at `params`: another algorithm (Django PBKDF2), or scrypt at a lower cost.
 */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT): boolean {
  const parts = encoded.split('$')
  if (parts[0] !== 'scrypt' || parts.length !== 6) return isUsableHash(encoded)
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  return n < params.N || r < params.r || p < params.p
}

async function verifyEncoded(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$')
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string]
    const params = { N: Number(n), r: Number(r), p: Number(p) }
    if (![params.N, params.r, params.p].every((x) => Number.isInteger(x) && x > 0)) return false
    const expected = Buffer.from(hashB64, 'base64')
    if (expected.length === 0) return false
    const actual = await scryptAsync(password.normalize('NFKC'), Buffer.from(saltB64, 'base64'), expected.length, {
      ...params,
      maxmem: maxmem(params),
    })
    return timingSafeEqual(actual, expected)
  }
  if (parts[0] === 'pbkdf2_sha256' && parts.length === 4) {
    const [, iterations, salt, hashB64] = parts as [string, string, string, string]
    const rounds = Number(iterations)
    if (!Number.isInteger(rounds) || rounds <= 0 || rounds > 10_000_000) return false
    const expected = Buffer.from(hashB64, 'base64')
    if (expected.length === 0) return false
    const actual = await pbkdf2Async(password, salt, rounds, expected.length, 'sha256')
    return timingSafeEqual(actual, expected)
  }
  return false
}
