import type { MaybePromise } from '../core/maybe-promise.js'
import type { StoredUser, UserId } from '../core/user.js'

/** DRF's `authtoken.Token`: one per user, no expiry. `String(token)` is not relied on: use `key`. */
export interface TokenRecord {
  readonly key: string
  readonly userId: UserId
  readonly created: Date
  /**
   * Optional: when the token stops working (`null` or absent: never). DRF's tokens have
   * none; a named token (`NamedTokenStore`) may. `TokenAuthentication` refuses a token
   * past it even when a cache still holds it, and `MemoryTokenCache` keeps it no longer.
   */
  readonly expiresAt?: Date | null
}

/** A token and the user it belongs to, read together (`TokenStore.findWithUser`). */
export interface TokenWithUser {
  readonly token: TokenRecord
  /** The token's user, active or not (`TokenAuthentication` refuses an inactive one). */
  readonly user: StoredUser
}

/** Where tokens live. At most one token per user. */
export interface TokenStore {
  /** The token with exactly this key, or `null`. */
  findByKey(key: string): Promise<TokenRecord | null>
  /**
   * Optional: the token with exactly this key together with its user, in one round trip to
   * the store (a join), or `null` when there is no such token or its user no longer exists.
   * `TokenAuthentication` uses it when present, else `findByKey` then `users.findById`.
   *
   * May answer synchronously (a store whose driver is synchronous, as `KyselyTokenStore` on
   * SQLite, returns the value itself: the request then makes no promise for it) or with a
   * promise. Callers must accept both (`await` does); a failure should be a rejected promise.
   */
  findWithUser?(key: string): MaybePromise<TokenWithUser | null>
  /** The user's token, created (40 hex chars from a CSPRNG) when missing. Same key on every call. */
  getOrCreate(userId: UserId): Promise<TokenRecord>
  /**
   * Optional: the user's token, or `null`, without creating one (the admin pages show its
   * creation date; the key it carries is never shown in a listing).
   */
  findByUser?(userId: UserId): Promise<TokenRecord | null>
  /** Deletes the user's token and creates a new one, atomically. */
  regenerate(userId: UserId): Promise<TokenRecord>
  /**
   * Optional: deletes the user's token (its key stops working); the next `getOrCreate`
   * makes a new one. @returns false when the user had no token.
   */
  delete?(userId: UserId): Promise<boolean>
  /**
   * Optional: told of every successful authentication with a token this store found (cached
   * or not), to record when it was last used. Must not throw for a record it does not own;
   * a failure to record is the store's to swallow (authentication goes on). May answer
   * synchronously (nothing to write: `undefined`, no promise) or with a promise.
   */
  touch?(token: TokenRecord): MaybePromise<void>
}
