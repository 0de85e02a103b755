import type { UserId } from '../core/user.js'
import type { InvalidationBus, InvalidationEvent, InvalidationListener } from './invalidation-bus.js'

/** Options for `LocalInvalidationBus`. */
export interface LocalInvalidationBusOptions {
  /** Told when a listener throws (the publisher carries on). @default console.error */
  readonly onError?: (error: unknown) => void
}

/**
 * An `InvalidationBus` inside one process: `publish` calls every listener before it
 * returns. Enough for a single instance, or for tests; several instances need
 * `RedisInvalidationBus` (`drf-gatehouse/redis`).
 *
 * @example
 * const bus = new LocalInvalidationBus()
 * const tokens = new KyselyTokenStore({ db, joinUsers: users.userTable, invalidation: bus })
 */
export class LocalInvalidationBus implements InvalidationBus {
  private readonly listeners = new Set<InvalidationListener>()
  private readonly onError: (error: unknown) => void

  constructor(options: LocalInvalidationBusOptions = {}) {
    this.onError = options.onError ?? ((error: unknown) => console.error('gatehouse: an invalidation listener failed', error))
  }

  async publish(userId: UserId): Promise<void> {
    this.deliver({ type: 'user', userId })
  }

  subscribe(listener: InvalidationListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is removed once per call.
    const entry: InvalidationListener = (event) => listener(event)
    this.listeners.add(entry)
    return () => {
      this.listeners.delete(entry)
    }
  }

  /** Calls every listener with `event` now; a listener that throws does not stop the others. */
  deliver(event: InvalidationEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (error) {
        this.onError(error)
      }
    }
  }
}
