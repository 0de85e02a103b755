import { ConfigurationError } from '../core/errors.js'
import { sha256Hex } from '../crypto/sha256.js'

/** Options of `CountCache`. */
export interface CountCacheOptions {
  /** How long a count is reused, in milliseconds, from the moment it was asked for. */
  readonly ttlMs: number
  /** Most counts kept; the least recently used goes first. @default 1000 */
  readonly maxEntries?: number
  /** The clock, in milliseconds (tests inject a fake one). @default Date.now */
  readonly now?: () => number
}

interface Entry {
  readonly expires: number
  readonly value: Promise<number>
}

/**
 * Counts reused for a while, per key (a source's `countKey()`: statement text and
 * parameters). One process's memory: each instance behind a load balancer keeps its own.
 *
 * Memory is bounded: keys are stored as SHA-256 digests (64 characters whatever the
 * statement's length), at most `maxEntries` of them, least recently used evicted first.
 * Concurrent requests for a key that is not cached share one count (the promise is
 * cached while it runs); a count that fails is forgotten, so the next request retries.
 */
export class CountCache {
  readonly ttlMs: number
  readonly maxEntries: number
  private readonly now: () => number
  private readonly entries = new Map<string, Entry>()

  constructor(options: CountCacheOptions) {
    const { ttlMs, maxEntries = 1000 } = options
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `count cache: cachedMs must be a positive number of milliseconds, got ${String(ttlMs)}`)
    }
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new ConfigurationError('ERR_INVALID_SETTING', `count cache: maxEntries must be a positive integer, got ${String(maxEntries)}`)
    }
    this.ttlMs = ttlMs
    this.maxEntries = maxEntries
    this.now = options.now ?? Date.now
  }

  /** The cached count for `key` while it is fresh, else `load()`'s (then cached). */
  get(key: string, load: () => Promise<number>): Promise<number> {
    const digest = sha256Hex(key)
    const now = this.now()
    const hit = this.entries.get(digest)
    this.entries.delete(digest)
    if (hit !== undefined && now < hit.expires) {
      this.entries.set(digest, hit) // most recently used goes last
      return hit.value
    }
    const entry: Entry = { expires: now + this.ttlMs, value: load() }
    this.entries.set(digest, entry)
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string)
    entry.value.catch(() => {
      if (this.entries.get(digest) === entry) this.entries.delete(digest)
    })
    return entry.value
  }

  /** How many counts are held (expired ones included until they are next asked for or evicted). */
  get size(): number {
    return this.entries.size
  }

  /** Forgets every count (after a bulk write, say). */
  clear(): void {
    this.entries.clear()
  }
}
