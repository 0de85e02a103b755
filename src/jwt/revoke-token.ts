/**
 * simplejwt 5.3's `CHECK_REVOKE_TOKEN`: a token carries a digest of its user's stored password
 * hash, and stops working once that hash changes. The digest is simplejwt's
 * `get_md5_hash_password(user.password)`, computed the same way so that tokens cross between
 * gatehouse and a simplejwt reading the same users table.
 */
import { md5 } from '@noble/hashes/legacy.js'
import { AuthenticationFailed, ConfigurationError } from '../core/errors.js'
import type { UserId } from '../core/user.js'
import { timingSafeEqual } from '../crypto/timing-safe-equal.js'
import type { UserStore } from '../stores/user-store.js'
import type { JwtCodec, JwtPayload } from './jwt-codec.js'

/** simplejwt's message (and code) for a token whose password digest no longer matches. */
export const PASSWORD_CHANGED_MESSAGE = "The user's password has been changed."

/** The user store's part in `checkRevokeToken`. */
export type RevokeTokenUsers = Partial<Pick<UserStore, 'storedPasswordHash'>>

/**
 * simplejwt's `get_md5_hash_password`: MD5 of the encoded password hash (`pbkdf2_sha256$…`,
 * `scrypt$…`, `!…`) as UTF-8, in upper-case hex. The hash is salted, so the digest says
 * nothing about the password; it only changes when the stored hash does.
 */
export function passwordHashDigest(storedPasswordHash: string): string {
  const digest = md5(new TextEncoder().encode(storedPasswordHash))
  let hex = ''
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0')
  return hex.toUpperCase()
}

/**
 * The store's `storedPasswordHash` when the `checkRevokeToken` setting is on (`undefined`
 * when off); a store without one is refused when the view or scheme is made.
 */
export function passwordHashReader(codec: JwtCodec, users: RevokeTokenUsers, what: string): ((id: UserId) => Promise<string | null>) | undefined {
  if (!codec.settings.checkRevokeToken) return undefined
  const read = users.storedPasswordHash?.bind(users)
  if (read === undefined) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `JWT setting "checkRevokeToken" needs ${what}'s user store to have storedPasswordHash (KyselyUserStore has it)`)
  }
  return read
}

/** The `revokeTokenClaim` value for a user whose stored hash is `storedPasswordHash` (`null`: none stored, read as empty). */
export function revokeClaimValue(storedPasswordHash: string | null): string {
  return passwordHashDigest(storedPasswordHash ?? '')
}

/**
 * `for_user`'s last step with `CHECK_REVOKE_TOKEN`: the digest of the user's stored hash under
 * `revokeTokenClaim`, after the user id. Nothing when the setting is off; with it on, a caller
 * that gave no hash (`undefined`) is a mistake of the app's, said at once.
 */
export function addRevokeClaim(codec: JwtCodec, payload: Record<string, unknown>, storedPasswordHash: string | null | undefined): void {
  if (!codec.settings.checkRevokeToken) return
  if (storedPasswordHash === undefined) {
    throw new ConfigurationError('ERR_INVALID_SETTING', "JWT setting \"checkRevokeToken\": a token for a user needs the user's storedPasswordHash")
  }
  payload[codec.settings.revokeTokenClaim] = revokeClaimValue(storedPasswordHash)
}

/**
 * simplejwt's check in `JWTAuthentication.get_user` (and in later versions' refresh
 * serializers): the token's claim must be the digest of the user's current stored hash, else
 * `401 {"detail": "The user's password has been changed.", "code": "password_changed"}`. A
 * token without the claim is refused too.
 */
export async function requireCurrentPassword(codec: JwtCodec, read: (id: UserId) => Promise<string | null>, userId: UserId, payload: JwtPayload): Promise<void> {
  const claim = payload[codec.settings.revokeTokenClaim]
  const current = revokeClaimValue(await read(userId))
  // As jwtAuthenticationFailed (not imported: jwt-authentication.ts imports this file).
  if (typeof claim !== 'string' || !timingSafeEqual(claim, current)) throw new AuthenticationFailed({ detail: PASSWORD_CHANGED_MESSAGE, code: 'password_changed' }, 'password_changed')
}
