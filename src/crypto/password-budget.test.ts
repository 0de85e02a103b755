import { describe, expect, it } from 'vitest'
import { isApiError } from '../core/errors.js'
import { PASSWORD_CHECKS_BUSY_DETAIL, PasswordBudget, defaultPasswordBudget } from './password-budget.js'

/** A check the test holds open until it calls `release`, recording that it started. */
function heldCheck<T>(value: T): { readonly started: () => boolean; readonly release: () => void; readonly check: () => Promise<T> } {
  let started = false
  let release: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (release = resolve))
  return {
    started: () => started,
    release: () => release(),
    check: async () => {
      started = true
      await gate
      return value
    },
  }
}

/** Lets every settled promise's continuations run (one macrotask turn; no time is measured). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

describe('PasswordBudget', () => {
  it('runs at most `concurrent` checks; the next ones wait in order; past `queued`, a 503 with Retry-After', async () => {
    const budget = new PasswordBudget({ concurrent: 2, queued: 2, retryAfterSeconds: 3 })
    const checks = [1, 2, 3, 4].map((n) => heldCheck(n))
    const results = checks.map((c) => budget.run(c.check))
    await settle()
    expect(checks.map((c) => c.started())).toEqual([true, true, false, false])
    expect([budget.running, budget.waiting]).toEqual([2, 2])
    // The fifth finds two running and two waiting: refused at once, its check never called.
    const fifth = heldCheck(5)
    const refused = await budget.run(fifth.check).catch((error: unknown) => error)
    expect(fifth.started()).toBe(false)
    expect(isApiError(refused)).toBe(true)
    expect(refused).toMatchObject({ status: 503, detail: PASSWORD_CHECKS_BUSY_DETAIL, code: 'password_checks_busy', headers: [['Retry-After', '3']] })
    // A finished check hands its turn to the first waiter, not to a newcomer.
    checks[1]?.release()
    await settle()
    expect(checks.map((c) => c.started())).toEqual([true, true, true, false])
    expect([budget.running, budget.waiting]).toEqual([2, 1])
    for (const c of checks) c.release()
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4])
    expect([budget.running, budget.waiting]).toEqual([0, 0])
  })

  it('a failing check gives its turn back', async () => {
    const budget = new PasswordBudget({ concurrent: 1, queued: 0 })
    await expect(budget.run(() => Promise.reject(new Error('hash failed')))).rejects.toThrow('hash failed')
    expect(budget.running).toBe(0)
    expect(await budget.run(async () => 'next')).toBe('next')
  })

  it('runIfIdle runs only when a turn is free, and never queues', async () => {
    const budget = new PasswordBudget({ concurrent: 1, queued: 5 })
    expect(await budget.runIfIdle(async () => 'idle')).toBe('idle')
    const held = heldCheck('held')
    const running = budget.run(held.check)
    await settle()
    const skipped = heldCheck('skipped')
    expect(await budget.runIfIdle(skipped.check)).toBeUndefined()
    expect(skipped.started()).toBe(false)
    expect(budget.waiting).toBe(0)
    held.release()
    expect(await running).toBe('held')
  })

  it('defaults: 2 at once (256 MiB at the default scrypt cost), 32 waiting, Retry-After 1; one default per process', () => {
    const budget = new PasswordBudget()
    expect([budget.concurrent, budget.queued, budget.retryAfterSeconds]).toEqual([2, 32, 1])
    expect(defaultPasswordBudget()).toBe(defaultPasswordBudget())
    expect(defaultPasswordBudget().concurrent).toBe(2)
  })

  it('refuses counts that are not integers, or too small', () => {
    expect(() => new PasswordBudget({ concurrent: 0 })).toThrow(RangeError)
    expect(() => new PasswordBudget({ concurrent: 1.5 })).toThrow(RangeError)
    expect(() => new PasswordBudget({ queued: -1 })).toThrow(RangeError)
    expect(() => new PasswordBudget({ retryAfterSeconds: Number.NaN })).toThrow(RangeError)
    expect(new PasswordBudget({ queued: 0 }).queued).toBe(0)
  })
})
