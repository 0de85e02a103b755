import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runReservingThrottleStoreSuite, runThrottleStoreSuite as runPublicSuite } from '../../src/testing/index.js'
import type { ReservingThrottleStore, ThrottleStore } from '../../src/throttling/throttle-store.js'

/** What a store suite needs: a store, built once per test. */
export interface ThrottleStoreSuiteOptions {
  create(): (ThrottleStore & ReservingThrottleStore) | Promise<ThrottleStore & ReservingThrottleStore>
}

/** A key no other test (or test run) uses. */
function freshKey(): string {
  return `throttle_suite_${randomBytes(6).toString('hex')}`
}

/**
 * The `ThrottleStore` contract as `drf-gatehouse/testing` ships it, plus a fast-check model
 * test (shrinking to a minimal failing sequence) that the shipped suite, which may not
 * depend on fast-check, replaces with fixed pseudo-random sequences.
 */
export function runThrottleStoreSuite(options: ThrottleStoreSuiteOptions): void {
  runPublicSuite({ describe, it, create: options.create })
  runReservingThrottleStoreSuite({ describe, it, create: options.create })

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
