import type { UserId } from '../core/user.js'

/** A refresh token the blacklist knows of (simplejwt's `OutstandingToken`, without the token text). */
export interface OutstandingJwt {
  /** The token's `jti` claim. */
  readonly jti: string
  /** Its user, when the token names one. */
  readonly userId: UserId | null
  /** Its `exp`. */
  readonly expiresAt: Date
}

/**
 * simplejwt's `token_blacklist` app: refresh tokens issued (outstanding) and revoked
 * (blacklisted), by `jti`. `KyselyJwtBlacklistStore` is the built-in; your own implements the same.
 */
export interface JwtBlacklistStore {
  /** Records a refresh token just issued. */
  addOutstanding(token: OutstandingJwt): Promise<void>
  /** Blacklists the token (recording it first when unknown). Blacklisting twice is harmless. */
  blacklist(token: OutstandingJwt): Promise<void>
  /** True once `jti` is blacklisted. */
  isBlacklisted(jti: string): Promise<boolean>
  /** simplejwt's `flushexpiredtokens`: deletes every token expired before `now`. @returns how many */
  flushExpired(now: Date): Promise<number>
}
