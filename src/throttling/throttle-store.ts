/** The outcome of one `ThrottleStore.hit`. */
export interface ThrottleHit {
  /** `true` when the hit was under the limit and was recorded. */
  readonly allowed: boolean
  /** Hits inside the window after this call (the new one included when allowed). */
  readonly count: number
  /** Time (ms, the caller's clock) of the oldest hit still in the window, or `null` when none is. */
  readonly oldest: number | null
}

/**
 * Where throttle histories live: a sliding-window log per key (DRF's cache
 * history). The only stateful part of throttling, so the only part that needs
 * sharing between processes.
 *
 * Contract, per key and **atomic** (no other hit on the same key may interleave):
 * 1. forget hits at or before `now - windowMs` (DRF drops `t <= now - duration`);
 * 2. if fewer than `limit` hits remain, record `now` and answer `allowed: true`;
 *    otherwise record nothing (DRF does not count refused requests);
 * 3. answer the count and oldest timestamp left, which feed DRF's `wait()`.
 *
 * A store that cannot be reached throws `ServiceUnavailable` (503), never hangs.
 *
 * @example
 * const hit = await store.hit('throttle_anon_10.0.0.1', Date.now(), 60_000, 5)
 * if (!hit.allowed) console.log(`${hit.count} hits since ${hit.oldest}`)
 */
export interface ThrottleStore {
  hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit>
}

/**
 * A `ThrottleStore` that can also give a recorded hit back, which `LoginFailureThrottle`
 * needs: it reserves a failure *before* checking a password (so concurrent guesses cannot
 * all slip under the limit) and releases it when the password was right.
 */
export interface ReleasableThrottleStore extends ThrottleStore {
  /**
   * Removes one hit recorded at exactly `at` from `key`'s history (any one, when several
   * share that time), atomically as `hit`. Nothing happens when there is none.
   */
  release(key: string, at: number): Promise<void>
}
