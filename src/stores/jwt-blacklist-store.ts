import type { UserId } from '../core/user.js'

/** A refresh token the blacklist knows of (simplejwt's `OutstandingToken`, without the token text). */
export interface OutstandingJwt {
  /** The token's `jti` claim. */
  readonly jti: string
  /** Its user, when the token names one. */
  readonly userId: UserId | null
  /** Its `exp`. */
  readonly expiresAt: Date
  /** Its `iat` (simplejwt's `OutstandingToken.created_at`), when it has one. */
  readonly createdAt?: Date | undefined
}

/** What the blacklist knows of one refresh token: what the admin pages list. */
export interface JwtTokenInfo {
  readonly jti: string
  /** When it was issued; `null` when the store was not told (rows from before it kept this). */
  readonly createdAt: Date | null
  readonly expiresAt: Date
  /** When it was blacklisted, or `null` while it is usable. */
  readonly blacklistedAt: Date | null
}

/**
 * simplejwt's `token_blacklist` app: refresh tokens issued (outstanding) and revoked
 * (blacklisted), by `jti`. `KyselyJwtBlacklistStore` is the built-in; your own implements the same.
 */
export interface JwtBlacklistStore {
  /** Records a refresh token just issued. */
  addOutstanding(token: OutstandingJwt): Promise<void>
  /**
   * Blacklists the token (recording it first when unknown), atomically: of any number of
   * concurrent calls for one `jti`, exactly one answers `true` (it blacklisted the token);
   * the others, and every later call, answer `false` (it already was). The refresh view's
   * rotation claims the old token this way, so one refresh token rotates once.
   * @returns whether this call blacklisted it
   */
  blacklist(token: OutstandingJwt): Promise<boolean>
  /** True once `jti` is blacklisted. */
  isBlacklisted(jti: string): Promise<boolean>
  /** simplejwt's `flushexpiredtokens`: deletes every token expired before `now`. @returns how many */
  flushExpired(now: Date): Promise<number>
  /**
   * Optional: a user's refresh tokens, newest first, at most `limit` (simplejwt's
   * OutstandingToken admin). The admin pages list them when present.
   */
  listForUser?(userId: UserId, limit: number): Promise<readonly JwtTokenInfo[]>
  /**
   * Optional: blacklists every refresh token of the user not blacklisted yet, so none of them
   * refreshes again (the admin pages' "blacklist all"). @returns how many were blacklisted
   */
  blacklistAllForUser?(userId: UserId): Promise<number>
}
