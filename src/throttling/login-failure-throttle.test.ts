import { describe, expect, it } from 'vitest'
import { Throttled } from '../core/errors.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { LoginFailureThrottle, type LoginFailureThrottleOptions } from './login-failure-throttle.js'
import { MemoryThrottleStore } from './memory-throttle-store.js'
import type { ReservationHit, ReservingThrottleStore } from './throttle-store.js'

/** A throttle on a fresh memory store with a clock the test moves. */
function setup(rate = '3/min', extra: Partial<Omit<LoginFailureThrottleOptions, 'store' | 'rate' | 'now'>> = {}) {
  const clock = { now: 1_000_000 }
  const store = new MemoryThrottleStore()
  const throttle = new LoginFailureThrottle({ store, rate, now: () => clock.now, ...extra })
  return { clock, store, throttle }
}

const from = (remoteAddress: string, headers: Record<string, string> = {}) => buildRequest({ remoteAddress, headers })
const fail = async (): Promise<null> => null
const succeed = async (): Promise<string> => 'user'

/** The outcome of one guarded check: the check's answer, or the Throttled error. */
async function attempt(throttle: LoginFailureThrottle, address: string, username: string, check: () => Promise<string | null>) {
  try {
    return { result: await throttle.guard(from(address), username, check) }
  } catch (error) {
    if (error instanceof Throttled) return { throttled: error }
    throw error
  }
}

describe('LoginFailureThrottle', () => {
  it('after `limit` failures from one address for a username, refuses that pair the right password too, without checking it', async () => {
    const { throttle } = setup('3/min')
    for (let i = 0; i < 3; i++) expect(await attempt(throttle, '10.0.0.1', 'alice', fail)).toEqual({ result: null })
    let checked = false
    const outcome = await attempt(throttle, '10.0.0.1', 'alice', async () => {
      checked = true
      return 'alice'
    })
    expect(checked).toBe(false)
    expect(outcome.throttled?.status).toBe(429)
    expect(outcome.throttled?.wait).toBe(60)
    expect(outcome.throttled?.message).toBe('Request was throttled. Expected available in 60 seconds.')
    // Another username from a fresh address is not affected.
    expect(await attempt(throttle, '10.0.0.10', 'bob', succeed)).toEqual({ result: 'user' })
  })

  it("a guesser cannot lock the owner out: alice's right password from her own address still works (issue 17 item 4)", async () => {
    const { throttle } = setup('3/min')
    for (let i = 0; i < 3; i++) await attempt(throttle, '203.0.113.66', 'alice', fail)
    expect((await attempt(throttle, '203.0.113.66', 'alice', succeed)).throttled).toBeInstanceOf(Throttled)
    expect(await attempt(throttle, '198.51.100.7', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('the looser per-username budget (10x by default) stops guesses spread over many addresses', async () => {
    const { throttle } = setup('3/min')
    expect(throttle.usernameRate).toEqual({ limit: 30, windowMs: 60_000 })
    for (let i = 0; i < 30; i++) expect(await attempt(throttle, `10.9.${i}.1`, 'alice', fail)).toEqual({ result: null })
    expect((await attempt(throttle, '10.9.200.1', 'alice', succeed)).throttled?.wait).toBe(60)
    const custom = setup('3/min', { usernameRate: '4/min' })
    for (let i = 0; i < 4; i++) await attempt(custom.throttle, `10.8.${i}.1`, 'alice', fail)
    expect((await attempt(custom.throttle, '10.8.9.1', 'alice', succeed)).throttled?.wait).toBe(60)
    const off = setup('1/min', { usernameRate: null, clientRate: null })
    for (let i = 0; i < 50; i++) await attempt(off.throttle, `10.7.${i}.1`, 'alice', fail)
    expect(await attempt(off.throttle, '10.7.99.1', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('counts per client address across usernames (password spraying), at clientRate', async () => {
    const { throttle } = setup('3/min', { clientRate: '3/min' })
    for (const name of ['a', 'b', 'c']) await attempt(throttle, '192.0.2.7', name, fail)
    expect((await attempt(throttle, '192.0.2.7', 'd', succeed)).throttled?.wait).toBe(60)
    expect(await attempt(throttle, '192.0.2.8', 'd', succeed)).toEqual({ result: 'user' })
  })

  it('groups IPv6 clients by /64, and honours numProxies for the address', async () => {
    const v6 = setup('2/min')
    await attempt(v6.throttle, '2001:db8:1:2::1', 'x', fail)
    await attempt(v6.throttle, '2001:db8:1:2::ffff', 'x', fail)
    expect((await attempt(v6.throttle, '2001:db8:1:2:abcd::5', 'x', succeed)).throttled).toBeInstanceOf(Throttled)
    expect(await attempt(v6.throttle, '2001:db8:1:3::1', 'x', succeed)).toEqual({ result: 'user' })

    const proxied = setup('1/min', { numProxies: 1 })
    await proxied.throttle.guard(from('10.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), 'p', fail)
    await expect(proxied.throttle.guard(from('10.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), 'p', succeed)).rejects.toBeInstanceOf(Throttled)
    expect(await proxied.throttle.guard(from('10.0.0.1', { 'x-forwarded-for': '198.51.100.2' }), 'p', succeed)).toBe('user')
  })

  it('a right password is not a failure: any number of successes never throttles', async () => {
    const { throttle, store } = setup('2/min')
    for (let i = 0; i < 20; i++) expect(await attempt(throttle, '10.1.1.1', 'alice', succeed)).toEqual({ result: 'user' })
    expect(store.size).toBe(0)
  })

  it('a success does not clear earlier failures; they age out of the window', async () => {
    const { throttle, clock } = setup('2/min')
    await attempt(throttle, '10.2.0.1', 'alice', fail)
    clock.now += 10_000
    await attempt(throttle, '10.2.0.1', 'alice', succeed)
    await attempt(throttle, '10.2.0.1', 'alice', fail)
    const refused = await attempt(throttle, '10.2.0.1', 'alice', succeed)
    expect(refused.throttled?.wait).toBe(50)
    clock.now += 50_000
    expect(await attempt(throttle, '10.2.0.1', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('concurrent guesses cannot slip past the limit: at most `limit` checks run', async () => {
    const { throttle } = setup('3/min')
    let checks = 0
    const slowFail = async (): Promise<null> => {
      checks++
      await new Promise((resolve) => setTimeout(resolve, 20))
      return null
    }
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => attempt(throttle, '10.3.0.1', 'alice', slowFail)))
    expect(checks).toBe(3)
    // The others waited for the three checks in progress, which then filled the budget with failures.
    expect(outcomes.filter((o) => o.throttled?.wait === 60)).toHaveLength(9)
  })

  it('concurrent right passwords wait for a place instead of a 429 (up to waitForSlotMs)', async () => {
    const { throttle } = setup('3/min')
    const slowSucceed = async (): Promise<string> => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      return 'user'
    }
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => attempt(throttle, '10.3.0.2', 'alice', slowSucceed)))
    expect(outcomes).toEqual(Array.from({ length: 12 }, () => ({ result: 'user' })))
    // Without the wait, the extra ones answer 429 at once, announcing the end of a reservation.
    const impatient = setup('3/min', { waitForSlotMs: 0 })
    const rushed = await Promise.all(Array.from({ length: 12 }, () => attempt(impatient.throttle, '10.3.0.3', 'alice', slowSucceed)))
    expect(rushed.filter((o) => o.throttled?.wait === 2)).toHaveLength(9)
  })

  it('an error thrown by the check counts as nothing and is rethrown', async () => {
    const { throttle, store } = setup('1/min')
    const boom = new Error('store down')
    await expect(throttle.guard(from('10.4.0.1'), 'alice', () => Promise.reject(boom))).rejects.toBe(boom)
    expect(store.size).toBe(0)
    expect(await attempt(throttle, '10.4.0.1', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('a check never settled (the process died mid-check) holds its place only for reservationMs, and is no failure', async () => {
    const { throttle, clock } = setup('1/min', { reservationMs: 2_000, waitForSlotMs: 0 })
    void throttle.guard(from('10.5.0.1'), 'alice', () => new Promise<null>(() => undefined))
    await new Promise((resolve) => setImmediate(resolve))
    expect((await attempt(throttle, '10.5.0.1', 'alice', succeed)).throttled?.wait).toBe(2)
    clock.now += 2_000
    expect(await attempt(throttle, '10.5.0.1', 'alice', succeed)).toEqual({ result: 'user' })
    expect(await attempt(throttle, '10.5.0.1', 'alice', fail)).toEqual({ result: null })
  })

  it('a reserving step that times out and runs late in the store (a frozen Redis resuming) counts nothing', async () => {
    const clock = { now: 1_000_000 }
    const memory = new MemoryThrottleStore()
    const late: (() => Promise<unknown>)[] = []
    // Gives up on every reserve at once, and lets the store run it later, at a later clock.
    const stalled: ReservingThrottleStore = {
      reserve: (key, id, now, windowMs, limit, leaseEnd): Promise<ReservationHit> => {
        late.push(() => memory.reserve(key, id, clock.now, windowMs, limit, leaseEnd))
        return Promise.reject(Object.assign(new Error('Command timed out'), { name: 'Error' }))
      },
      confirm: (key, id, at, windowMs) => memory.confirm(key, id, at, windowMs),
      cancel: () => Promise.reject(new Error('Command timed out')),
    }
    const frozen = new LoginFailureThrottle({ store: stalled, rate: '2/min', now: () => clock.now, reservationMs: 2_000 })
    for (let i = 0; i < 6; i++) {
      await expect(frozen.guard(from('10.6.0.1'), 'alice', succeed)).rejects.toThrow('Command timed out')
      clock.now += 100
    }
    clock.now += 2_000 // the client gave up at its command timeout; the store resumes later still
    for (const run of late) await run()
    const thawed = new LoginFailureThrottle({ store: memory, rate: '2/min', now: () => clock.now })
    expect(await attempt(thawed, '10.6.0.1', 'alice', succeed)).toEqual({ result: 'user' })
    expect(await attempt(thawed, '10.6.0.1', 'alice', succeed)).toEqual({ result: 'user' })
    expect(await attempt(thawed, '10.6.0.1', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('a failure the store cannot record is not answered: the store error is thrown instead', async () => {
    const memory = new MemoryThrottleStore()
    const down = new Error('Connection is closed.')
    const store: ReservingThrottleStore = {
      reserve: (...args) => memory.reserve(...args),
      confirm: () => Promise.reject(down),
      cancel: (key, id) => memory.cancel(key, id),
    }
    const throttle = new LoginFailureThrottle({ store, rate: '2/min' })
    await expect(throttle.guard(from('10.6.1.1'), 'alice', fail)).rejects.toBe(down)
    expect(await throttle.guard(from('10.6.1.1'), 'alice', succeed)).toBe('user')
  })

  it('keys usernames by digest (bounded size, no user text) and addresses by network', () => {
    const { throttle } = setup()
    const keys = throttle.keys(from('::ffff:203.0.113.5'), 'x'.repeat(10_000))
    expect(keys.user).toMatch(/^login_failures_user_[0-9a-f]{32}$/)
    expect(keys.pair).toMatch(/^login_failures_pair_[0-9a-f]{32}_203\.0\.113\.5$/)
    expect(keys.client).toBe('login_failures_ip_203.0.113.5')
  })

  it.each(['5', '5/10m', 'many/min'])('rejects the rate %j at construction', (rate) => {
    expect(() => new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate })).toThrow(/invalid throttle rate/)
    expect(() => new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '5/min', usernameRate: rate })).toThrow(/invalid throttle rate/)
  })

  it('rejects a reservationMs that is not a positive integer, and a negative waitForSlotMs', () => {
    expect(() => new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '5/min', reservationMs: 0 })).toThrow(/reservationMs/)
    expect(() => new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '5/min', waitForSlotMs: -1 })).toThrow(/waitForSlotMs/)
  })
})
