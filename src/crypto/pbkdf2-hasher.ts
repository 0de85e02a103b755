import { bytesToBase64 } from '../core/encoding/base64.js'
import { pbkdf2Sha256 } from './key-derivation.js'
import { nativeCrypto } from './native-crypto.js'
import { type PasswordHasher, scryptHasher } from './password-hasher.js'
import { scryptHashMemory, verifyEncoded, verifyPassword } from './passwords.js'
import { randomAlphanumeric } from './random.js'

/**
 * Django 5.2's `PBKDF2PasswordHasher.iterations` (4.2 has 600,000, 5.0 720,000, 5.1 870,000).
 * 5.2 is the supported LTS (4.2's support ended in April 2026), so hashes made here are the
 * ones a current Django makes, and Django does not ask to rehash them.
 */
const DJANGO_ITERATIONS = 1_000_000

/** Django's salt: 22 characters of `[a-zA-Z0-9]`, 128 bits (`BasePasswordHasher.salt_entropy`). */
const SALT_LENGTH = 22

/** SHA-256's output: Django's `dklen` default (the digest size). */
const KEY_LENGTH = 32

/**
 * 128 MiB and the slack OpenSSL asks above it: enough for a hash at gatehouse's default scrypt
 * cost (N=2^17, r=8, p=1), nothing costlier.
 */
const DEFAULT_SCRYPT_MAX_MEMORY = 128 * 1024 * 1024 + 2 * 1024 * 1024

/** Options of {@link pbkdf2Hasher}. */
export interface Pbkdf2HasherOptions {
  /**
   * PBKDF2 iterations for new hashes; a stored hash at another count verifies and is reported
   * as needing a rehash (Django's `must_update`). Lower it only in tests. @default 1_000_000 (Django 5.2)
   */
  readonly iterations?: number
  /**
   * The most memory a check of a stored `scrypt$…` hash (made by gatehouse on Node) may take
   * here. A costlier one rejects with an error saying so rather than exhaust the isolate (a
   * Cloudflare Worker has 128 MB in all: set 64 MiB there and rehash such users on Node).
   * @default 130 MiB (gatehouse's default scrypt cost, N=2^17, r=8, p=1)
   */
  readonly scryptMaxMemory?: number
}

/**
 * Django's default hasher, `pbkdf2_sha256$<iterations>$<salt>$<hash b64>`, over Web Crypto's
 * PBKDF2 (native code on every edge runtime, a few MiB of memory) or node:crypto's: what a
 * user store hashes with where node:crypto's scrypt is missing ({@link defaultPasswordHasher}).
 * Its hashes verify in Django and on Node's scrypt hasher (which rehashes them to scrypt); it
 * verifies gatehouse's scrypt hashes too, in JavaScript, up to `scryptMaxMemory`, and does not
 * ask to rehash them (scrypt is the stronger of the two). Comparisons are constant-time.
 *
 * @example
 * new KyselyUserStore({ db, passwordHasher: pbkdf2Hasher({ scryptMaxMemory: 64 * 2 ** 20 }) })
 */
export function pbkdf2Hasher(options: Pbkdf2HasherOptions = {}): PasswordHasher {
  const iterations = options.iterations ?? DJANGO_ITERATIONS
  const maxMemory = options.scryptMaxMemory ?? DEFAULT_SCRYPT_MAX_MEMORY
  if (!Number.isSafeInteger(iterations) || iterations < 1) throw new RangeError(`pbkdf2Hasher: iterations must be a positive integer, not ${String(iterations)}`)
  return Object.freeze({
    async hash(password: string): Promise<string> {
      const salt = randomAlphanumeric(SALT_LENGTH)
      const key = await pbkdf2Sha256(password, salt, iterations, KEY_LENGTH)
      return ['pbkdf2_sha256', iterations, salt, bytesToBase64(key)].join('$')
    },
    async verify(password: string, encoded: string): Promise<boolean> {
      const memory = scryptHashMemory(encoded)
      if (memory === undefined) return verifyPassword(password, encoded)
      if (memory > maxMemory) throw scryptTooCostly(memory, maxMemory)
      try {
        return await verifyEncoded(password, encoded)
      } catch (error) {
        // The allocation failed (an engine's ArrayBuffer limit): say so rather than "wrong password".
        if (error instanceof RangeError) throw scryptTooCostly(memory, maxMemory, error)
        return false
      }
    },
    needsRehash(encoded: string): boolean {
      const parts = encoded.split('$')
      return parts[0] === 'pbkdf2_sha256' && parts.length === 4 && Number(parts[1]) !== iterations
    },
  })
}

function scryptTooCostly(memory: number, maxMemory: number, cause?: unknown): Error {
  const mib = (bytes: number): string => `${Math.ceil(bytes / 2 ** 20)} MiB`
  return new Error(
    `this scrypt password hash needs ${mib(memory)} to check, more than this runtime allows (pbkdf2Hasher's scryptMaxMemory: ${mib(maxMemory)}); ` +
      'check it where node:crypto has scrypt (Node, Bun, Deno), or raise scryptMaxMemory where the memory exists',
    cause === undefined ? undefined : { cause },
  )
}

/**
 * The hasher a user store takes by default: {@link scryptHasher} where `node:crypto` has
 * scrypt (Node, Bun, Deno, Workers with `nodejs_compat`), else {@link pbkdf2Hasher} (an edge
 * runtime, where a portable scrypt at the default cost would take the isolate's memory).
 */
export function defaultPasswordHasher(): PasswordHasher {
  return hasNativeScrypt() ? scryptHasher() : pbkdf2Hasher()
}

/** Whether this runtime's node:crypto has scrypt (on libuv's thread pool, within Node's memory). */
export function hasNativeScrypt(): boolean {
  return typeof nativeCrypto?.scrypt === 'function'
}
