import { describe, expect, it } from 'vitest'
import { Throttled } from '../core/errors.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { LoginFailureThrottle } from './login-failure-throttle.js'
import { MemoryThrottleStore } from './memory-throttle-store.js'

/** A throttle on a fresh memory store with a clock the test moves. */
function setup(rate = '3/min', extra: { numProxies?: number; ipv6Prefix?: number } = {}) {
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
  it('after `limit` failures for a username, refuses the right password too, without checking it', async () => {
    const { throttle } = setup('3/min')
    for (let i = 0; i < 3; i++) expect(await attempt(throttle, `10.0.0.${i}`, 'alice', fail)).toEqual({ result: null })
    let checked = false
    const outcome = await attempt(throttle, '10.0.0.9', 'alice', async () => {
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

  it('counts per client address across usernames (password spraying)', async () => {
    const { throttle } = setup('3/min')
    for (const name of ['a', 'b', 'c']) await attempt(throttle, '192.0.2.7', name, fail)
    expect((await attempt(throttle, '192.0.2.7', 'd', succeed)).throttled?.wait).toBe(60)
    expect(await attempt(throttle, '192.0.2.8', 'd', succeed)).toEqual({ result: 'user' })
  })

  it('groups IPv6 clients by /64, and honours numProxies for the address', async () => {
    const v6 = setup('2/min')
    await attempt(v6.throttle, '2001:db8:1:2::1', 'x', fail)
    await attempt(v6.throttle, '2001:db8:1:2::ffff', 'y', fail)
    expect((await attempt(v6.throttle, '2001:db8:1:2:abcd::5', 'z', succeed)).throttled).toBeInstanceOf(Throttled)
    expect(await attempt(v6.throttle, '2001:db8:1:3::1', 'z', succeed)).toEqual({ result: 'user' })

    const proxied = setup('1/min', { numProxies: 1 })
    await proxied.throttle.guard(from('10.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), 'p', fail)
    await expect(proxied.throttle.guard(from('10.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), 'q', succeed)).rejects.toBeInstanceOf(Throttled)
    expect(await proxied.throttle.guard(from('10.0.0.1', { 'x-forwarded-for': '198.51.100.2' }), 'q', succeed)).toBe('user')
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
    await attempt(throttle, '10.2.0.2', 'alice', succeed)
    await attempt(throttle, '10.2.0.3', 'alice', fail)
    const refused = await attempt(throttle, '10.2.0.4', 'alice', succeed)
    expect(refused.throttled?.wait).toBe(50)
    clock.now += 50_000
    expect(await attempt(throttle, '10.2.0.4', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('concurrent guesses cannot slip past the limit: at most `limit` checks run', async () => {
    const { throttle } = setup('3/min')
    let checks = 0
    const slowFail = async (): Promise<null> => {
      checks++
      await new Promise((resolve) => setTimeout(resolve, 20))
      return null
    }
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(throttle, `10.3.0.${i}`, 'alice', slowFail)))
    expect(checks).toBe(3)
    expect(outcomes.filter((o) => o.throttled !== undefined)).toHaveLength(9)
  })

  it('an error thrown by the check counts as nothing and is rethrown', async () => {
    const { throttle, store } = setup('1/min')
    const boom = new Error('store down')
    await expect(throttle.guard(from('10.4.0.1'), 'alice', () => Promise.reject(boom))).rejects.toBe(boom)
    expect(store.size).toBe(0)
    expect(await attempt(throttle, '10.4.0.1', 'alice', succeed)).toEqual({ result: 'user' })
  })

  it('keys usernames by digest (bounded size, no user text) and addresses by network', () => {
    const { throttle } = setup()
    const keys = throttle.keys(from('::ffff:203.0.113.5'), 'x'.repeat(10_000))
    expect(keys.user).toMatch(/^login_failures_user_[0-9a-f]{32}$/)
    expect(keys.client).toBe('login_failures_ip_203.0.113.5')
  })

  it.each(['5', '5/10m', 'many/min'])('rejects the rate %j at construction', (rate) => {
    expect(() => new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate })).toThrow(/invalid throttle rate/)
  })
})
