import { DEFAULT_SCRYPT, hashPassword, needsRehash, verifyPassword, type ScryptParams } from './passwords.js'
import { randomAlphanumeric } from './random.js'

/**
 * How a user store hashes and checks passwords. The built-in one is {@link scryptHasher}
 * (node:crypto's scrypt where the runtime has it, else `@noble/hashes`, with the same hashes
 * on every runtime). Bring your own to hash natively where the portable scrypt is too slow or
 * too hungry (an edge runtime's CPU and memory limits), or to use another algorithm.
 *
 * @example
 * // A hasher over a native scrypt binding, keeping gatehouse's format:
 * const hasher: PasswordHasher = {
 *   hash: (password) => myNativeHash(password),
 *   verify: (password, encoded) => myNativeVerify(password, encoded).catch(() => false),
 *   needsRehash: (encoded) => !encoded.startsWith('scrypt$131072$'),
 * }
 * new KyselyUserStore({ db, passwordHasher: hasher })
 */
export interface PasswordHasher {
  /** The stored form of a new password (it should carry its own salt and cost). */
  hash(password: string): Promise<string>
  /**
   * Whether `password` matches a stored hash. Resolves `false`, never rejects, for a hash it
   * cannot read; it should take the same time for any wrong password. It may reject for a
   * hash it reads but cannot afford to check on this runtime (`pbkdf2Hasher` and a costly
   * scrypt hash), which is not a wrong password.
   */
  verify(password: string, encoded: string): Promise<boolean>
  /** Whether a hash that just verified should be replaced by `hash(password)` (another algorithm, a lower cost). */
  needsRehash(encoded: string): boolean
}

/**
 * The built-in hasher: `scrypt$N$r$p$salt$hash` at `params` for new hashes, and Django's
 * `pbkdf2_sha256$…` hashes verified (and reported as needing a rehash).
 */
export function scryptHasher(params: ScryptParams = DEFAULT_SCRYPT): PasswordHasher {
  return Object.freeze({
    hash: (password: string) => hashPassword(password, params),
    verify: verifyPassword,
    needsRehash: (encoded: string) => needsRehash(encoded, params),
  })
}

/**
 * `verify` padded so that a wrong password costs about the same whatever the account, as
 * `verifyPasswordUniform` does for the built-in hasher: no account (`null`) or an unusable
 * hash (`!…`, empty) is checked against a dummy hash (one `hash()` of a random password, made
 * on first need and kept), and a hash that `needsRehash` is checked alongside that dummy.
 */
export function paddedVerifier(hasher: PasswordHasher): (password: string, encoded: string | null) => Promise<boolean> {
  let dummy: Promise<string> | undefined
  const dummyHash = (): Promise<string> =>
    (dummy ??= hasher.hash(randomAlphanumeric(32)).catch((error: unknown) => {
      // A failed dummy is made again next time rather than kept as a rejection.
      dummy = undefined
      throw error
    }))
  return async (password, encoded) => {
    if (encoded === null || encoded === '' || encoded.startsWith('!')) {
      await hasher.verify(password, await dummyHash())
      return false
    }
    if (!hasher.needsRehash(encoded)) return hasher.verify(password, encoded)
    const [ok] = await Promise.all([hasher.verify(password, encoded), dummyHash().then((d) => hasher.verify(password, d))])
    return ok
  }
}
