import type { MaybePromise } from '../core/maybe-promise.js'

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
  /**
   * One hit on `key`, as the contract above says. May answer synchronously (an in-process
   * store such as `MemoryThrottleStore`: no promise per request) or with a promise (Redis);
   * callers accept both (`await` does). A failure should be a rejected promise.
   */
  hit(key: string, now: number, windowMs: number, limit: number): MaybePromise<ThrottleHit>
}

/** The outcome of one `ReservingThrottleStore.reserve`. */
export interface ReservationHit {
  /** `true` when a reservation was recorded (confirmed failures + live reservations were under the limit). */
  readonly allowed: boolean
  /** Confirmed failures still in the window. */
  readonly failures: number
  /** Reservations whose lease has not ended (the new one included when allowed). */
  readonly pending: number
  /** Time (ms) of the oldest confirmed failure still in the window, or `null` when none is. */
  readonly oldest: number | null
  /** When the first live reservation's lease ends (ms), or `null` when none is live. */
  readonly nextLeaseEnd: number | null
}

/**
 * A `ThrottleStore` that also keeps *reservations*, which `LoginFailureThrottle` needs: it
 * reserves a slot before checking a password (so concurrent guesses cannot all slip under
 * the limit), then **confirms** it as a failure when the password was wrong or **cancels** it
 * when it was right.
 *
 * A reservation counts against the limit only until its lease ends. So a reservation that is
 * never settled (the process was killed during the check, or the store ran the reserving step
 * only after the caller had given up on it, as a frozen Redis does when it resumes) lapses by
 * itself and never becomes a failure: only `confirm`, which runs after a password check has
 * failed, records one.
 *
 * Contract, per key and atomic like `hit` (ids are unique per reservation):
 * - `reserve`: forget failures at or before `now - windowMs` and reservations whose lease
 *   ended at or before `now`; when failures + reservations < `limit`, record reservation `id`
 *   with its lease ending at `leaseEnd`.
 * - `confirm`: drop reservation `id` (whether or not its lease has ended) and record a failure
 *   at `at` that leaves the window at `at + windowMs`.
 * - `cancel`: drop reservation `id`; nothing happens when there is none.
 */
export interface ReservingThrottleStore {
  reserve(key: string, id: string, now: number, windowMs: number, limit: number, leaseEnd: number): Promise<ReservationHit>
  confirm(key: string, id: string, at: number, windowMs: number): Promise<void>
  cancel(key: string, id: string): Promise<void>
}
