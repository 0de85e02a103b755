import assert from 'node:assert/strict'
import type { ReservingThrottleStore } from '../throttling/throttle-store.js'
import { uniqueName, type Factory, type TestApi } from './test-api.js'

/** Options for `runReservingThrottleStoreSuite`. */
export interface ReservingThrottleStoreSuiteOptions extends TestApi {
  /** Names the `describe` block. @default 'ReservingThrottleStore contract' */
  readonly name?: string
  /** Your store. Every case uses keys of its own, so one store may serve them all. */
  readonly create: Factory<ReservingThrottleStore>
}

function freshKey(): string {
  return uniqueName('reserve_suite')
}

/**
 * The `ReservingThrottleStore` contract that `LoginFailureThrottle` relies on: reservations
 * count against the limit until their lease ends, lapse by themselves, and only `confirm`
 * records a failure; atomic per key.
 *
 * @example
 * runReservingThrottleStoreSuite({ describe, it, create: () => new MyThrottleStore() })
 */
export function runReservingThrottleStoreSuite(options: ReservingThrottleStoreSuiteOptions): void {
  const { describe, it, create } = options
  describe(options.name ?? 'ReservingThrottleStore contract', () => {
    it('counts live reservations and confirmed failures against the limit', async () => {
      const store = await create()
      const key = freshKey()
      assert.deepEqual(await store.reserve(key, 'a', 1_000, 60_000, 2, 3_000), { allowed: true, failures: 0, pending: 1, oldest: null, nextLeaseEnd: 3_000 })
      assert.deepEqual(await store.reserve(key, 'b', 1_500, 60_000, 2, 3_500), { allowed: true, failures: 0, pending: 2, oldest: null, nextLeaseEnd: 3_000 })
      assert.deepEqual(await store.reserve(key, 'c', 2_000, 60_000, 2, 4_000), { allowed: false, failures: 0, pending: 2, oldest: null, nextLeaseEnd: 3_000 })
      await store.confirm(key, 'a', 2_100, 60_000)
      await store.cancel(key, 'b')
      assert.deepEqual(await store.reserve(key, 'd', 2_200, 60_000, 2, 4_200), { allowed: true, failures: 1, pending: 1, oldest: 2_100, nextLeaseEnd: 4_200 })
      await store.confirm(key, 'd', 2_300, 60_000)
      assert.deepEqual(await store.reserve(key, 'e', 2_400, 60_000, 2, 4_400), { allowed: false, failures: 2, pending: 0, oldest: 2_100, nextLeaseEnd: null })
      // Failures leave the window at `at + windowMs` (DRF drops t <= now - duration).
      assert.deepEqual(await store.reserve(key, 'f', 62_100, 60_000, 2, 64_100), { allowed: true, failures: 1, pending: 1, oldest: 2_300, nextLeaseEnd: 64_100 })
    })

    it('a reservation never settled lapses at its lease end and leaves no failure', async () => {
      const store = await create()
      const key = freshKey()
      assert.equal((await store.reserve(key, 'x', 1_000, 60_000, 1, 3_000)).allowed, true)
      assert.equal((await store.reserve(key, 'y', 2_999, 60_000, 1, 4_999)).allowed, false)
      assert.deepEqual(await store.reserve(key, 'z', 3_000, 60_000, 1, 5_000), { allowed: true, failures: 0, pending: 1, oldest: null, nextLeaseEnd: 5_000 })
      await store.cancel(key, 'z')
      // A reserving step run after its lease ended (a stalled store resuming) records nothing.
      assert.equal((await store.reserve(key, 'late', 9_000, 60_000, 1, 8_000)).allowed, false)
      assert.deepEqual(await store.reserve(key, 'w', 9_001, 60_000, 1, 11_000), { allowed: true, failures: 0, pending: 1, oldest: null, nextLeaseEnd: 11_000 })
    })

    it('confirm records the failure even after the lease ended; cancel of an unknown id does nothing', async () => {
      const store = await create()
      const key = freshKey()
      await store.reserve(key, 'slow', 1_000, 60_000, 3, 2_000)
      await store.confirm(key, 'slow', 5_000, 60_000)
      await store.cancel(key, 'nobody')
      await store.cancel(freshKey(), 'nobody')
      assert.deepEqual(await store.reserve(key, 'n', 6_000, 60_000, 3, 8_000), { allowed: true, failures: 1, pending: 1, oldest: 5_000, nextLeaseEnd: 8_000 })
    })

    it('is atomic per key: concurrent reservations never exceed the limit', async () => {
      const store = await create()
      const key = freshKey()
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => store.reserve(key, `r${i}`, 1_000 + i, 60_000, 7, 60_000)))
      assert.equal(results.filter((r) => r.allowed).length, 7)
    })
  })
}
