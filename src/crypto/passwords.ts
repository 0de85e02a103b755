import { base64ToBytes, bytesToBase64 } from '../core/encoding/base64.js'
import { pbkdf2Sha256, scrypt } from './key-derivation.js'
import { randomBytes } from './random.js'
import { equalBytes } from './timing-safe-equal.js'

/**
 * scrypt cost parameters: `N` (CPU/memory cost, a power of two), `r` (block size), `p`
 * (parallelism). One hash needs about `128 * N * r` bytes of memory while it runs.
 */
export interface ScryptParams {
  readonly N: number
  readonly r: number
  readonly p: number
}

/**
 * The library's default cost: OWASP's Password Storage Cheat Sheet recommendation
 * (N=2^17, r=8, p=1), 128 MiB and about 0.3 s of one core per hash on a 2024 server.
 * Stores accept cheaper parameters for tests and demos only (see `KyselyUserStoreOptions.scrypt`).
 */
export const DEFAULT_SCRYPT: ScryptParams = Object.freeze({ N: 2 ** 17, r: 8, p: 1 })
const KEY_LENGTH = 32

/**
 * The most memory one scrypt check may take (1 GiB, N=2^20 at r=8): a stored hash asking
 * for more is treated as corrupt ("no match") rather than allowed to exhaust the host.
 */
const MAX_SCRYPT_MEMORY = 2 ** 30

/**
 * The memory OpenSSL needs for these parameters (`128*r*(N+2)` for V plus `128*r*p` for B),
 * with a little slack: Node's default cap (32 MiB) refuses OWASP's N=2^17, r=8.
 */
function scryptMemory(params: ScryptParams): number {
  return 128 * params.r * (params.N + 2) + 128 * params.r * params.p + 64 * 1024
}


/** Hashes a password as `scrypt$N$r$p$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(password.normalize('NFKC'), salt, { ...params, keyLength: KEY_LENGTH, maxmem: scryptMemory(params) })
  return ['scrypt', params.N, params.r, params.p, bytesToBase64(salt), bytesToBase64(hash)].join('$')
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

/**
 * A stored hash in gatehouse's format that no password matches: random salt and random
 * "hash". Verifying against it costs one scrypt at `params`, which is what an unknown user,
 * an unusable password or a legacy hash is padded with, and it needs no hashing up front.
 */
export function dummyHash(params: ScryptParams = DEFAULT_SCRYPT): string {
  return ['scrypt', params.N, params.r, params.p, bytesToBase64(randomBytes(16)), bytesToBase64(randomBytes(KEY_LENGTH))].join('$')
}

/**
 * Verifies a password so that a wrong one costs about the same whatever the account, which
 * keeps the answer's timing from telling which usernames exist:
 * - no account (`null`) or an unusable hash (`!…`): one scrypt at `params` against a dummy;
 * - a hash `needsRehash` would replace (Django PBKDF2, or scrypt cheaper than `params`):
 *   checked *alongside* a dummy scrypt at `params`, both on libuv's thread pool at once, so
 *   the wall time is the longer of the two, the `params` cost as long as the legacy hash is
 *   cheaper (Django's 720,000-1,000,000 PBKDF2 iterations take about half an OWASP scrypt).
 *   Django itself does not pad across hashers ("we don't protect against enumeration if
 *   the hasher changed"); this costs one extra scrypt of CPU until the user logs in once.
 *   Not equalised under CPU contention: when the two checks compete for cores, such an
 *   account answers a wrong password measurably slower (README, Security);
 * - any other hash: checked on its own.
 *
 * @example
 * const ok = await verifyPasswordUniform(password, row?.password ?? null, DEFAULT_SCRYPT)
 */
export async function verifyPasswordUniform(
  password: string,
  encoded: string | null,
  params: ScryptParams = DEFAULT_SCRYPT,
): Promise<boolean> {
  if (encoded === null || !isUsableHash(encoded)) {
    await verifyPassword(password, dummyHash(params))
    return false
  }
  if (!needsRehash(encoded, params)) return verifyPassword(password, encoded)
  const [ok] = await Promise.all([verifyPassword(password, encoded), verifyPassword(password, dummyHash(params))])
  return ok
}

/**
 * The memory a check of this scrypt hash takes (what OpenSSL would be asked for), or
 * `undefined` when `encoded` is not a well-formed `scrypt$…` hash. For hashers that must
 * refuse, with a clear error, a check their runtime cannot afford.
 */
export function scryptHashMemory(encoded: string): number | undefined {
  const parts = encoded.split('$')
  if (parts[0] !== 'scrypt' || parts.length !== 6) return undefined
  const params = { N: Number(parts[1]), r: Number(parts[2]), p: Number(parts[3]) }
  if (![params.N, params.r, params.p].every((x) => Number.isInteger(x) && x > 0)) return undefined
  return scryptMemory(params)
}

/**
 * `verifyPassword` without its catch: rejects when the check itself fails (the runtime
 * could not allocate scrypt's memory, say), for callers that report that instead of "no match".
 */
export async function verifyEncoded(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$')
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string]
    const params = { N: Number(n), r: Number(r), p: Number(p) }
    if (![params.N, params.r, params.p].every((x) => Number.isInteger(x) && x > 0)) return false
    if (scryptMemory(params) > MAX_SCRYPT_MEMORY) return false
    const expected = base64ToBytes(hashB64)
    if (expected.length === 0) return false
    const actual = await scrypt(password.normalize('NFKC'), base64ToBytes(saltB64), {
      ...params,
      keyLength: expected.length,
      maxmem: scryptMemory(params),
    })
    return equalBytes(actual, expected)
  }
  if (parts[0] === 'pbkdf2_sha256' && parts.length === 4) {
    const [, iterations, salt, hashB64] = parts as [string, string, string, string]
    const rounds = Number(iterations)
    if (!Number.isInteger(rounds) || rounds <= 0 || rounds > 10_000_000) return false
    const expected = base64ToBytes(hashB64)
    if (expected.length === 0) return false
    const actual = await pbkdf2Sha256(password, salt, rounds, expected.length)
    return equalBytes(actual, expected)
  }
  return false
}
