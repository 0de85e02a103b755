import type { UserId } from '../core/user.js'

/** DRF's `authtoken.Token`: one per user, no expiry. `String(token)` is not relied on: use `key`. */
export interface TokenRecord {
  readonly key: string
  readonly userId: UserId
  readonly created: Date
}

/** Where tokens live. At most one token per user. */
export interface TokenStore {
  /** The token with exactly this key, or `null`. */
  findByKey(key: string): Promise<TokenRecord | null>
  /** The user's token, created (40 hex chars from a CSPRNG) when missing. Same key on every call. */
  getOrCreate(userId: UserId): Promise<TokenRecord>
  /** Deletes the user's token and creates a new one, atomically. */
  regenerate(userId: UserId): Promise<TokenRecord>
}
