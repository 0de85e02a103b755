import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import type { ReleasableThrottleStore } from '../../src/throttling/throttle-store.js'

/** What a store suite needs: a store, built once per test. */
export interface ThrottleStoreSuiteOptions {
  create(): ReleasableThrottleStore | Promise<ReleasableThrottleStore>
}

/** A key no other test (or test run) uses. */
function freshKey(): string {
  return `throttle_suite_${randomBytes(6).toString('hex')}`
}

/**
 * The `ThrottleStore` contract (throttle-store.ts), run against every store:
 * DRF's sliding window, refused hits not recorded, per-key atomicity.
 */
export function runThrottleStoreSuite(options: ThrottleStoreSuiteOptions): void {
  it('release gives back one hit recorded at that time, frees its slot, and ignores unknown ones', async () => {
    const store = await options.create()
    const key = freshKey()
    await store.hit(key, 1_000, 60_000, 2)
    await store.hit(key, 2_000, 60_000, 2)
    await store.hit(key, 2_000, 60_000, 3)
    await store.release(key, 2_000)
    expect(await store.hit(key, 3_000, 60_000, 3)).toEqual({ allowed: true, count: 3, oldest: 1_000 })
    await store.release(key, 9_999)
    await store.release(freshKey(), 1)
    expect(await store.hit(key, 4_000, 60_000, 3)).toEqual({ allowed: false, count: 3, oldest: 1_000 })
    for (const at of [1_000, 2_000, 3_000]) await store.release(key, at)
    expect(await store.hit(key, 5_000, 60_000, 0)).toEqual({ allowed: false, count: 0, oldest: null })
  })

  it('allows up to the limit, then refuses, reporting count and oldest', async () => {
    const store = await options.create()
    const key = freshKey()
    expect(await store.hit(key, 1_000, 60_000, 3)).toEqual({ allowed: true, count: 1, oldest: 1_000 })
    expect(await store.hit(key, 2_000, 60_000, 3)).toEqual({ allowed: true, count: 2, oldest: 1_000 })
    expect(await store.hit(key, 3_000, 60_000, 3)).toEqual({ allowed: true, count: 3, oldest: 1_000 })
    expect(await store.hit(key, 4_000, 60_000, 3)).toEqual({ allowed: false, count: 3, oldest: 1_000 })
  })

  it('does not record refused hits', async () => {
    const store = await options.create()
    const key = freshKey()
    await store.hit(key, 0, 10_000, 1)
    for (let t = 1_000; t < 10_000; t += 1_000) expect((await store.hit(key, t, 10_000, 1)).allowed).toBe(false)
    // Only the hit at t=0 was kept, so the slot frees at t=10000 exactly.
    expect(await store.hit(key, 10_000, 10_000, 1)).toEqual({ allowed: true, count: 1, oldest: 10_000 })
  })

  it('forgets hits at or before now - window (DRF drops t <= now - duration) and keeps later ones', async () => {
    const store = await options.create()
    const key = freshKey()
    await store.hit(key, 0, 1_000, 2)
    await store.hit(key, 500, 1_000, 2)
    expect(await store.hit(key, 999, 1_000, 2)).toEqual({ allowed: false, count: 2, oldest: 0 })
    expect(await store.hit(key, 1_000, 1_000, 2)).toEqual({ allowed: true, count: 2, oldest: 500 })
    expect(await store.hit(key, 1_400, 1_000, 2)).toEqual({ allowed: false, count: 2, oldest: 500 })
    expect(await store.hit(key, 5_000, 1_000, 2)).toEqual({ allowed: true, count: 1, oldest: 5_000 })
  })

  it('keeps keys apart', async () => {
    const store = await options.create()
    const [a, b] = [freshKey(), freshKey()]
    expect((await store.hit(a, 0, 60_000, 1)).allowed).toBe(true)
    expect((await store.hit(a, 1, 60_000, 1)).allowed).toBe(false)
    expect(await store.hit(b, 2, 60_000, 1)).toEqual({ allowed: true, count: 1, oldest: 2 })
  })

  it('refuses everything at limit 0, with nothing recorded', async () => {
    const store = await options.create()
    const key = freshKey()
    expect(await store.hit(key, 0, 60_000, 0)).toEqual({ allowed: false, count: 0, oldest: null })
    expect(await store.hit(key, 1, 60_000, 0)).toEqual({ allowed: false, count: 0, oldest: null })
  })

  it('answers a lowered limit with the whole history (DRF wait() then returns null)', async () => {
    const store = await options.create()
    const key = freshKey()
    for (let i = 0; i < 5; i++) await store.hit(key, i, 60_000, 5)
    expect(await store.hit(key, 10, 60_000, 2)).toEqual({ allowed: false, count: 5, oldest: 0 })
  })

  it('keeps millisecond timestamps exactly', async () => {
    const store = await options.create()
    const key = freshKey()
    const now = 1_764_000_000_123
    expect(await store.hit(key, now, 86_400_000, 2)).toEqual({ allowed: true, count: 1, oldest: now })
    expect(await store.hit(key, now + 1, 86_400_000, 2)).toEqual({ allowed: true, count: 2, oldest: now })
  })

  it('is atomic per key: concurrent hits never exceed the limit', async () => {
    const store = await options.create()
    const key = freshKey()
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => store.hit(key, 1_000 + i, 60_000, 17)))
    expect(results.filter((r) => r.allowed)).toHaveLength(17)
    expect(Math.max(...results.map((r) => r.count))).toBe(17)
  })

  it('matches DRF\'s sliding-window log for any sequence of hits (model-based)', async () => {
    const store = await options.create()
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4 }),
        // Round numbers make hits land exactly on the window's edge often.
        fc.constantFrom(100, 500, 1_000),
        fc.array(fc.integer({ min: 0, max: 12 }).map((n) => n * 100), { maxLength: 25 }),
        async (limit, windowMs, gaps) => {
          const key = freshKey()
          const model: number[] = [] // DRF's history, oldest first
          let now = 1_000_000
          for (const gap of gaps) {
            now += gap
            while (model.length > 0 && (model[0] as number) <= now - windowMs) model.shift()
            const allowed = model.length < limit
            if (allowed) model.push(now)
            expect(await store.hit(key, now, windowMs, limit)).toEqual({ allowed, count: model.length, oldest: model[0] ?? null })
          }
        },
      ),
      { numRuns: 40 },
    )
  })
}
