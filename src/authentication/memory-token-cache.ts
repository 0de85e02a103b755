import { ConfigurationError } from '../core/errors.js'
import type { StoredUser, UserId } from '../core/user.js'
import { sha256Hex } from '../crypto/sha256.js'
import type { InvalidationBus, InvalidationEvent } from '../stores/invalidation-bus.js'
import type { TokenRecord, TokenWithUser } from '../stores/token-store.js'
import type { TokenCache, TokenLoader } from './token-cache.js'
import type { MaybePromise } from '../core/maybe-promise.js'

/** Options for `MemoryTokenCache`. */
export interface MemoryTokenCacheOptions {
  /**
   * How long an entry is served, in ms, counted from the start of the lookup that read it.
   * Also the longest a change can go unseen when its invalidation is lost (Redis down).
   */
  readonly ttlMs: number
  /** Entries kept at most; past it the least recently used goes. @default 10_000 */
  readonly maxEntries?: number
  /**
   * Where the stores announce changes (token regenerated or deleted, user deactivated,
   * password changed): give the same bus to the stores. Required, so a cache is never
   * silently deaf; `new LocalInvalidationBus()` that nothing publishes on makes a TTL-only cache.
   */
  readonly invalidation: InvalidationBus
  /** @default Date.now */
  readonly now?: () => number
}

/** An entry: the token without its key, so the cache holds no raw key at all. */
interface Entry {
  readonly userKey: string
  readonly token: Omit<TokenRecord, 'key'>
  readonly user: StoredUser
  readonly expiresAt: number
}

/** The cache key of a token key: its SHA-256, so no raw key is ever a map key (nor shows in a heap dump or log of the map). */
function digest(key: string): string {
  return sha256Hex(key)
}

/** Users are keyed by `String(id)`: an id that reaches a store as `1` and a message as `"1"` is one user. */
function userKey(userId: UserId): string {
  return String(userId)
}

/**
 * Token lookups kept in this process's memory for `ttlMs`, at most `maxEntries` of them
 * (least recently used evicted first, in O(1)), and dropped as soon as the
 * `invalidation` bus says their user changed. Opt-in: give it to `TokenAuthentication`'s
 * `cache` option.
 *
 * Only found tokens are kept. An unknown key always reaches the store, so guessing keys
 * costs the same with the cache as without, and a key created later is never refused from
 * memory. A lookup that was already running when its user was invalidated is answered to
 * its request but not kept, so a change is never undone by a slow read of the old state
 * (a per-user invalidation generation, checked when the lookup ends). Concurrent lookups
 * of one key share a single store lookup.
 *
 * @example
 * const bus = new LocalInvalidationBus() // or new RedisInvalidationBus({ redis }) across instances
 * const cache = new MemoryTokenCache({ ttlMs: 60_000, maxEntries: 10_000, invalidation: bus })
 * new TokenAuthentication({ tokens, users, cache })
 */
export class MemoryTokenCache implements TokenCache {
  readonly ttlMs: number
  readonly maxEntries: number
  private readonly now: () => number
  /** Digest → entry, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>()
  /** User → the digests of their entries. */
  private readonly byUser = new Map<string, Set<string>>()
  /** Digest → the store lookup in flight, shared by concurrent requests for that key. */
  private readonly pending = new Map<string, Promise<TokenWithUser | null>>()
  /** Bumped by every invalidation. */
  private generation = 0
  /** The generation of the last "forget everything". */
  private resetAt = 0
  /** User → generation of their last invalidation, kept only while an older lookup is in flight. */
  private readonly invalidatedAt = new Map<string, number>()
  /** Generation a lookup started at → lookups in flight from it (keys ascend in insertion order). */
  private readonly inFlight = new Map<number, number>()
  private readonly unsubscribe: () => void

  /** @throws ConfigurationError when `ttlMs` or `maxEntries` is not a positive number, or `invalidation` is missing. */
  constructor(options: MemoryTokenCacheOptions) {
    const { ttlMs, maxEntries = 10_000, invalidation } = options
    if (typeof ttlMs !== 'number' || !(ttlMs > 0) || !Number.isFinite(ttlMs)) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'MemoryTokenCache option "ttlMs" must be a positive number of milliseconds')
    }
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'MemoryTokenCache option "maxEntries" must be a positive integer')
    }
    if (typeof invalidation?.subscribe !== 'function') {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'MemoryTokenCache option "invalidation" must be an InvalidationBus (the one the stores publish on)')
    }
    this.ttlMs = ttlMs
    this.maxEntries = maxEntries
    this.now = options.now ?? Date.now
    this.unsubscribe = invalidation.subscribe((event) => this.onInvalidation(event))
  }

  /** Entries held, expired ones included until they are read or evicted. */
  get size(): number {
    return this.entries.size
  }

  /** A live entry answers synchronously; a miss joins or starts the store lookup. */
  get(key: string, load: TokenLoader): MaybePromise<TokenWithUser | null> {
    const id = digest(key)
    const entry = this.entries.get(id)
    if (entry !== undefined) {
      if (entry.expiresAt > this.now()) {
        this.entries.delete(id)
        this.entries.set(id, entry)
        return { token: { ...entry.token, key }, user: entry.user }
      }
      this.remove(id, entry)
    }
    const pending = this.pending.get(id)
    if (pending !== undefined) return pending
    const loading = this.load(id, key, load)
    this.pending.set(id, loading)
    const settled = (): void => {
      if (this.pending.get(id) === loading) this.pending.delete(id)
    }
    loading.then(settled, settled)
    return loading
  }

  /** Forgets every entry. */
  clear(): void {
    this.forgetAll()
  }

  /** Stops listening to the bus (the entries stay until they expire or are cleared). */
  close(): void {
    this.unsubscribe()
  }

  private async load(id: string, key: string, load: TokenLoader): Promise<TokenWithUser | null> {
    const start = this.generation
    const startedAt = this.now()
    this.inFlight.set(start, (this.inFlight.get(start) ?? 0) + 1)
    try {
      const found = await load(key)
      if (found !== null && !this.invalidatedSince(found.token.userId, start)) this.insert(id, found, startedAt)
      return found
    } finally {
      this.loadEnded(start)
    }
  }

  private invalidatedSince(userId: UserId, start: number): boolean {
    return this.resetAt > start || (this.invalidatedAt.get(userKey(userId)) ?? -1) > start
  }

  private insert(id: string, found: TokenWithUser, startedAt: number): void {
    const previous = this.entries.get(id)
    if (previous !== undefined) this.remove(id, previous)
    const user = userKey(found.token.userId)
    const { key: _key, ...token } = found.token
    // A token that expires sooner than the TTL is kept only until it expires.
    const tokenExpiry = found.token.expiresAt?.getTime() ?? Infinity
    this.entries.set(id, { userKey: user, token, user: found.user, expiresAt: Math.min(startedAt + this.ttlMs, tokenExpiry) })
    let digests = this.byUser.get(user)
    if (digests === undefined) {
      digests = new Set()
      this.byUser.set(user, digests)
    }
    digests.add(id)
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.entries().next().value
      if (oldest !== undefined) this.remove(oldest[0], oldest[1])
    }
  }

  private remove(id: string, entry: Entry): void {
    this.entries.delete(id)
    const digests = this.byUser.get(entry.userKey)
    digests?.delete(id)
    if (digests?.size === 0) this.byUser.delete(entry.userKey)
  }

  private loadEnded(start: number): void {
    const count = (this.inFlight.get(start) ?? 1) - 1
    if (count > 0) this.inFlight.set(start, count)
    else this.inFlight.delete(start)
    // Invalidations older than every lookup still in flight can no longer matter.
    const oldest = this.inFlight.keys().next()
    if (oldest.done === true) {
      this.invalidatedAt.clear()
      return
    }
    for (const [user, generation] of this.invalidatedAt) {
      if (generation > oldest.value) break
      this.invalidatedAt.delete(user)
    }
  }

  private onInvalidation(event: InvalidationEvent): void {
    if (event.type === 'all') this.forgetAll()
    else this.forgetUser(event.userId)
  }

  private forgetUser(userId: UserId): void {
    const user = userKey(userId)
    this.generation += 1
    if (this.inFlight.size > 0) {
      // Re-inserted at the end, so the map stays in ascending generation order.
      this.invalidatedAt.delete(user)
      this.invalidatedAt.set(user, this.generation)
    }
    for (const id of this.byUser.get(user) ?? []) this.entries.delete(id)
    this.byUser.delete(user)
    // A request arriving from now on must not join a lookup that may have read the old state.
    this.pending.clear()
  }

  private forgetAll(): void {
    this.generation += 1
    this.resetAt = this.generation
    this.entries.clear()
    this.byUser.clear()
    this.pending.clear()
    this.invalidatedAt.clear()
  }
}
