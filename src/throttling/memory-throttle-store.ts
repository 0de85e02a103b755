import { ConfigurationError } from '../core/errors.js'
import type { ReservationHit, ReservingThrottleStore, ThrottleHit, ThrottleStore } from './throttle-store.js'

interface History {
  /** Hit times, oldest first. */
  readonly hits: number[]
  windowMs: number
}

/** A key's confirmed failures and live reservations (`ReservingThrottleStore`). */
interface Ledger {
  /** When each confirmed failure leaves the window, in the order confirmed. */
  readonly failureEnds: number[]
  /** Reservation id → the end of its lease. */
  readonly leases: Map<string, number>
}

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
export class MemoryThrottleStore implements ThrottleStore, ReservingThrottleStore {
  /** In the order keys were last hit (a Map keeps insertion order): the first is the oldest. */
  private readonly histories = new Map<string, History>()
  /** Reservation ledgers, bounded and ordered like `histories`. */
  private readonly ledgers = new Map<string, Ledger>()
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

  /** Synchronous: the hit's outcome itself, no promise. */
  hit(key: string, now: number, windowMs: number, limit: number): ThrottleHit {
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

  async reserve(key: string, id: string, now: number, windowMs: number, limit: number, leaseEnd: number): Promise<ReservationHit> {
    const ledger = this.ledger(key, now)
    const live = [...ledger.leases.values()]
    const failures = ledger.failureEnds.length
    const allowed = failures + live.length < limit && leaseEnd > now
    if (allowed) {
      ledger.leases.set(id, leaseEnd)
      live.push(leaseEnd)
    }
    const oldestEnd = failures === 0 ? null : Math.min(...ledger.failureEnds)
    if (ledger.failureEnds.length === 0 && ledger.leases.size === 0) this.ledgers.delete(key)
    return {
      allowed,
      failures,
      pending: live.length,
      oldest: oldestEnd === null ? null : oldestEnd - windowMs,
      nextLeaseEnd: live.length === 0 ? null : Math.min(...live),
    }
  }

  async confirm(key: string, id: string, at: number, windowMs: number): Promise<void> {
    const ledger = this.ledger(key, at)
    ledger.leases.delete(id)
    ledger.failureEnds.push(at + windowMs)
  }

  async cancel(key: string, id: string): Promise<void> {
    const ledger = this.ledgers.get(key)
    if (ledger === undefined) return
    ledger.leases.delete(id)
    if (ledger.failureEnds.length === 0 && ledger.leases.size === 0) this.ledgers.delete(key)
  }

  /** `key`'s ledger, moved to most recently used, with what has lapsed by `now` dropped. */
  private ledger(key: string, now: number): Ledger {
    // Sweep first: a sweep after the lookup could drop the ledger the caller is about to fill.
    if (++this.hitsSinceSweep >= SWEEP_EVERY) this.sweep(now)
    let ledger = this.ledgers.get(key)
    if (ledger === undefined) {
      ledger = { failureEnds: [], leases: new Map() }
      if (this.ledgers.size >= this.maxKeys) dropFirst(this.ledgers)
    } else {
      this.ledgers.delete(key)
    }
    this.ledgers.set(key, ledger)
    for (let i = ledger.failureEnds.length - 1; i >= 0; i--) if ((ledger.failureEnds[i] as number) <= now) ledger.failureEnds.splice(i, 1)
    for (const [id, end] of ledger.leases) if (end <= now) ledger.leases.delete(id)
    return ledger
  }

  /** Number of keys held, rate histories and reservation ledgers (for tests and metrics). */
  get size(): number {
    return this.histories.size + this.ledgers.size
  }

  /** Makes room for one key by dropping the least recently hit one: O(1), even under a flood. */
  private dropOldest(): void {
    dropFirst(this.histories)
  }

  /** Forgets keys whose newest hit has left its window, so idle clients do not leak memory. */
  private sweep(now: number): void {
    this.hitsSinceSweep = 0
    for (const [key, history] of this.histories) {
      const newest = history.hits[history.hits.length - 1]
      if (newest === undefined || newest <= now - history.windowMs) this.histories.delete(key)
    }
    for (const [key, ledger] of this.ledgers) {
      if (ledger.failureEnds.every((end) => end <= now) && [...ledger.leases.values()].every((end) => end <= now)) this.ledgers.delete(key)
    }
  }
}

function dropFirst(map: Map<string, unknown>): void {
  const first = map.keys().next()
  if (first.done !== true) map.delete(first.value)
}
