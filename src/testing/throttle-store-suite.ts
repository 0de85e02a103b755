import assert from 'node:assert/strict'
import type { ThrottleStore } from '../throttling/throttle-store.js'
import { seededRandom, uniqueName, type Factory, type TestApi } from './test-api.js'

/** Options for `runThrottleStoreSuite`. */
export interface ThrottleStoreSuiteOptions extends TestApi {
  /** Names the `describe` block. @default 'ThrottleStore contract' */
  readonly name?: string
  /** Your store. Every case uses keys of its own, so one store may serve them all. */
  readonly create: Factory<ThrottleStore>
}

function freshKey(): string {
  return uniqueName('throttle_suite')
}

/**
 * The `ThrottleStore` contract: DRF's sliding-window log per key (hits at or before
 * `now - window` forgotten, refused hits not recorded), answered atomically per key.
 *
 * @example
 * runThrottleStoreSuite({ describe, it, create: () => new MyThrottleStore() })
 */
export function runThrottleStoreSuite(options: ThrottleStoreSuiteOptions): void {
  const { describe, it, create } = options
  describe(options.name ?? 'ThrottleStore contract', () => {
    it('allows up to the limit, then refuses, reporting count and oldest', async () => {
      const store = await create()
      const key = freshKey()
      assert.deepEqual(await store.hit(key, 1_000, 60_000, 3), { allowed: true, count: 1, oldest: 1_000 })
      assert.deepEqual(await store.hit(key, 2_000, 60_000, 3), { allowed: true, count: 2, oldest: 1_000 })
      assert.deepEqual(await store.hit(key, 3_000, 60_000, 3), { allowed: true, count: 3, oldest: 1_000 })
      assert.deepEqual(await store.hit(key, 4_000, 60_000, 3), { allowed: false, count: 3, oldest: 1_000 })
    })

    it('does not record refused hits', async () => {
      const store = await create()
      const key = freshKey()
      await store.hit(key, 0, 10_000, 1)
      for (let t = 1_000; t < 10_000; t += 1_000) assert.equal((await store.hit(key, t, 10_000, 1)).allowed, false)
      // Only the hit at t=0 was kept, so the slot frees at t=10000 exactly.
      assert.deepEqual(await store.hit(key, 10_000, 10_000, 1), { allowed: true, count: 1, oldest: 10_000 })
    })

    it('forgets hits at or before now - window (DRF drops t <= now - duration) and keeps later ones', async () => {
      const store = await create()
      const key = freshKey()
      await store.hit(key, 0, 1_000, 2)
      await store.hit(key, 500, 1_000, 2)
      assert.deepEqual(await store.hit(key, 999, 1_000, 2), { allowed: false, count: 2, oldest: 0 })
      assert.deepEqual(await store.hit(key, 1_000, 1_000, 2), { allowed: true, count: 2, oldest: 500 })
      assert.deepEqual(await store.hit(key, 1_400, 1_000, 2), { allowed: false, count: 2, oldest: 500 })
      assert.deepEqual(await store.hit(key, 5_000, 1_000, 2), { allowed: true, count: 1, oldest: 5_000 })
    })

    it('keeps keys apart', async () => {
      const store = await create()
      const [a, b] = [freshKey(), freshKey()]
      assert.equal((await store.hit(a, 0, 60_000, 1)).allowed, true)
      assert.equal((await store.hit(a, 1, 60_000, 1)).allowed, false)
      assert.deepEqual(await store.hit(b, 2, 60_000, 1), { allowed: true, count: 1, oldest: 2 })
    })

    it('refuses everything at limit 0, with nothing recorded', async () => {
      const store = await create()
      const key = freshKey()
      assert.deepEqual(await store.hit(key, 0, 60_000, 0), { allowed: false, count: 0, oldest: null })
      assert.deepEqual(await store.hit(key, 1, 60_000, 0), { allowed: false, count: 0, oldest: null })
    })

    it('answers a lowered limit with the whole history (DRF wait() then returns null)', async () => {
      const store = await create()
      const key = freshKey()
      for (let i = 0; i < 5; i++) await store.hit(key, i, 60_000, 5)
      assert.deepEqual(await store.hit(key, 10, 60_000, 2), { allowed: false, count: 5, oldest: 0 })
    })

    it('keeps millisecond timestamps exactly', async () => {
      const store = await create()
      const key = freshKey()
      const now = 1_764_000_000_123
      assert.deepEqual(await store.hit(key, now, 86_400_000, 2), { allowed: true, count: 1, oldest: now })
      assert.deepEqual(await store.hit(key, now + 1, 86_400_000, 2), { allowed: true, count: 2, oldest: now })
    })

    it('is atomic per key: concurrent hits never exceed the limit', async () => {
      const store = await create()
      const key = freshKey()
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => store.hit(key, 1_000 + i, 60_000, 17)))
      assert.equal(results.filter((r) => r.allowed).length, 17)
      assert.equal(Math.max(...results.map((r) => r.count)), 17)
    })

    it("matches DRF's sliding-window log over 40 pseudo-random sequences of hits", async () => {
      const store = await create()
      const random = seededRandom(20_240_601)
      const pick = (n: number): number => Math.floor(random() * n)
      for (let run = 0; run < 40; run++) {
        const limit = pick(5)
        // Round numbers make hits land exactly on the window's edge often.
        const windowMs = [100, 500, 1_000][pick(3)] as number
        const key = freshKey()
        const model: number[] = [] // DRF's history, oldest first
        let now = 1_000_000
        for (let step = pick(26); step > 0; step--) {
          now += pick(13) * 100
          while (model.length > 0 && (model[0] as number) <= now - windowMs) model.shift()
          const allowed = model.length < limit
          if (allowed) model.push(now)
          const expected = { allowed, count: model.length, oldest: model[0] ?? null }
          assert.deepEqual(await store.hit(key, now, windowMs, limit), expected, `run ${run}: limit ${limit}, window ${windowMs}, at ${now}`)
        }
      }
    })
  })
}
