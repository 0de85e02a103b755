import type { UserId } from '../core/user.js'

/**
 * What a cache hears from an `InvalidationBus`: `user`, forget what you hold about this
 * user (their token was regenerated or deleted, they were deactivated, their password
 * changed); `all`, forget everything (the bus may have missed messages, after a lost
 * connection for instance).
 */
export type InvalidationEvent = { readonly type: 'user'; readonly userId: UserId } | { readonly type: 'all' }

/** Called for every event, synchronously; it must not throw. */
export type InvalidationListener = (event: InvalidationEvent) => void

/**
 * Carries "this user's credentials changed" from the stores that change them to the caches
 * that hold them, in this process (`LocalInvalidationBus`) or in every process
 * (`RedisInvalidationBus` from `drf-gatehouse/redis`). Delivery is best effort: a cache bounds
 * what a lost message costs by its own time-to-live.
 *
 * @example
 * const bus = new LocalInvalidationBus()
 * const users = new KyselyUserStore({ db, invalidation: bus })           // publishes
 * const cache = new MemoryTokenCache({ ttlMs: 60_000, invalidation: bus }) // listens
 */
export interface InvalidationBus {
  /**
   * Tells every listener (in this process at once, elsewhere as soon as the transport
   * delivers) that `userId`'s cached credentials are stale. Never rejects: a transport
   * failure is reported by the bus itself (its `onError`).
   */
  publish(userId: UserId): Promise<void>
  /** Adds a listener; the answer removes it again. */
  subscribe(listener: InvalidationListener): () => void
}
