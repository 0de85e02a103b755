import type { ThrottleHit, ThrottleStore } from './throttle-store.js'

interface History {
  /** Hit times, oldest first. */
  readonly hits: number[]
  windowMs: number
}

/** How many hits pass between sweeps of idle keys. */
const SWEEP_EVERY = 1_000

/**
 * Throttle histories in this process's memory: for tests and single-process
 * apps. Every hit runs synchronously, so it is atomic within the process; use
 * `RedisThrottleStore` when several processes must share one budget.
 */
export class MemoryThrottleStore implements ThrottleStore {
  private readonly histories = new Map<string, History>()
  private hitsSinceSweep = 0

  async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
    let history = this.histories.get(key)
    if (history === undefined) {
      history = { hits: [], windowMs }
      this.histories.set(key, history)
    }
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

  /** Number of keys held (for tests and metrics). */
  get size(): number {
    return this.histories.size
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
