import { ConfigurationError } from '../core/errors.js'
import type { ReleasableThrottleStore, ThrottleHit } from './throttle-store.js'

interface History {
  /** Hit times, oldest first. */
  readonly hits: number[]
  windowMs: number
}

/** How many hits pass between sweeps of idle keys. */
const SWEEP_EVERY = 1_000

/** Options for `MemoryThrottleStore`. */
export interface MemoryThrottleStoreOptions {
  /**
   * The most keys (client × scope) held at once. Past it the key touched longest ago is
   * dropped first, which gives that client a fresh budget: memory stays bounded however
   * many addresses a flood uses, at the price of forgetting the quietest clients first.
   * @default 100_000
   */
  readonly maxKeys?: number
}

/**
 * Throttle histories in this process's memory: for tests and single-process
 * apps. Every hit runs synchronously, so it is atomic within the process; use
 * `RedisThrottleStore` when several processes must share one budget.
 */
export class MemoryThrottleStore implements ReleasableThrottleStore {
  /** In the order keys were last hit (a Map keeps insertion order): the first is the oldest. */
  private readonly histories = new Map<string, History>()
  private hitsSinceSweep = 0
  private readonly maxKeys: number

  /** @throws ConfigurationError when `maxKeys` is not a positive integer. */
  constructor(options: MemoryThrottleStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 100_000
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'MemoryThrottleStore option "maxKeys" must be a positive integer')
    }
    this.maxKeys = maxKeys
  }

  async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
    let history = this.histories.get(key)
    if (history === undefined) {
      history = { hits: [], windowMs }
      if (this.histories.size >= this.maxKeys) this.dropOldest()
    } else {
      // Move to the end: the Map's order is least recently hit first.
      this.histories.delete(key)
    }
    this.histories.set(key, history)
    history.windowMs = windowMs
    const cutoff = now - windowMs
    let expired = 0
    while (expired < history.hits.length && (history.hits[expired] as number) <= cutoff) expired++
    if (expired > 0) history.hits.splice(0, expired)
    const allowed = history.hits.length < limit
    if (allowed) history.hits.push(now)
    const result: ThrottleHit = { allowed, count: history.hits.length, oldest: history.hits[0] ?? null }
    if (history.hits.length === 0) this.histories.delete(key)
    if (++this.hitsSinceSweep >= SWEEP_EVERY) this.sweep(now)
    return result
  }

  async release(key: string, at: number): Promise<void> {
    const history = this.histories.get(key)
    if (history === undefined) return
    const index = history.hits.lastIndexOf(at)
    if (index !== -1) history.hits.splice(index, 1)
    if (history.hits.length === 0) this.histories.delete(key)
  }

  /** Number of keys held (for tests and metrics). */
  get size(): number {
    return this.histories.size
  }

  /** Makes room for one key by dropping the least recently hit one: O(1), even under a flood. */
  private dropOldest(): void {
    const oldest = this.histories.keys().next()
    if (oldest.done !== true) this.histories.delete(oldest.value)
  }

  /** Forgets keys whose newest hit has left its window, so idle clients do not leak memory. */
  private sweep(now: number): void {
    this.hitsSinceSweep = 0
    for (const [key, history] of this.histories) {
      const newest = history.hits[history.hits.length - 1]
      if (newest === undefined || newest <= now - history.windowMs) this.histories.delete(key)
    }
  }
}
