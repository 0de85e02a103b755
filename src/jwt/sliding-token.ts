import type { StoredUser } from '../core/user.js'
import type { JwtBlacklistStore } from '../stores/jwt-blacklist-store.js'
import type { JwtCodec, JwtPayload } from './jwt-codec.js'
import { addRevokeClaim } from './revoke-token.js'
import { TOKEN_MESSAGES, TokenError } from './token-error.js'

/**
 * simplejwt's `SlidingToken.for_user(user)`: a sliding token's claims at `now` seconds, `exp`
 * `slidingTokenLifetime` and `refresh_exp` `slidingTokenRefreshLifetime` ahead. With the
 * `checkRevokeToken` setting, give the user's `storedPasswordHash` (`null`: none).
 */
export function slidingPayloadFor(codec: JwtCodec, user: StoredUser, now: number, storedPasswordHash?: string | null): JwtPayload {
  const s = codec.settings
  const payload = codec.newPayload('sliding', now, s.slidingTokenLifetime)
  payload[s.slidingTokenRefreshExpClaim] = Math.floor(now + s.slidingTokenRefreshLifetime)
  payload[s.userIdClaim] = typeof user.id === 'number' && Number.isInteger(user.id) ? user.id : String(user.id)
  addRevokeClaim(codec, payload, storedPasswordHash)
  return payload
}

/**
 * simplejwt's `SlidingToken(token)` with the blacklist app: decoded, and refused ("Token is
 * blacklisted") when its `jti` is blacklisted, checked before `exp`, `jti` and the type as
 * `BlacklistMixin.verify` does. Throws `TokenError`.
 */
export function decodeSliding(codec: JwtCodec, token: string, blacklist: Pick<JwtBlacklistStore, 'isBlacklisted'> | undefined): Promise<JwtPayload> {
  if (blacklist === undefined) return codec.decode(token, 'sliding')
  return codec.decode(token, 'sliding', async (payload) => {
    const jti = payload[codec.settings.jtiClaim]
    // No jti: "Token has no id" next (simplejwt's check_blacklist answers 500 for it).
    if (jti !== undefined && (await blacklist.isBlacklisted(String(jti)))) throw new TokenError(TOKEN_MESSAGES.blacklisted)
  })
}
