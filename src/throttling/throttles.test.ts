import { describe, expect, it } from 'vitest'
import { createApi } from '../core/api.js'
import { jsonResponse } from '../core/api-response.js'
import type { ApiRequest } from '../core/api-request.js'
import { ConfigurationError } from '../core/errors.js'
import type { PolicyContext } from '../core/policy-context.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { anonymousUser, type User } from '../core/user.js'
import { AnonRateThrottle } from './anon-rate-throttle.js'
import { MemoryThrottleStore } from './memory-throttle-store.js'
import { ScopedRateThrottle } from './scoped-rate-throttle.js'
import { throttleWait } from './simple-rate-throttle.js'
import type { ThrottleHit, ThrottleStore } from './throttle-store.js'
import { UserRateThrottle } from './user-rate-throttle.js'

function request(remoteAddress = '127.0.0.1', xff?: string): ApiRequest {
  const headers = new Headers()
  if (xff !== undefined) headers.set('x-forwarded-for', xff)
  return createApiRequest({ method: 'GET', url: new URL('http://testserver/'), headers, remoteAddress, readBody: async () => null })
}

const alice: User = { id: 42, username: 'alice', isActive: true, isStaff: false, isAuthenticated: true }

function ctx(user: User, throttleScope: string | null = null, req = request()): PolicyContext {
  return { request: req, user, auth: null, view: { name: 'test', throttleScope } }
}

/** A clock the test moves by hand, in seconds like DRF's tests. */
function fakeClock(start = 0): { now: () => number; set(seconds: number): void } {
  let ms = start * 1000
  return { now: () => ms, set: (seconds) => (ms = seconds * 1000) }
}

/** Records the keys a throttle asks for, and answers from a memory store. */
class RecordingStore implements ThrottleStore {
  readonly keys: string[] = []
  private readonly inner = new MemoryThrottleStore()
  hit(key: string, now: number, windowMs: number, limit: number): ThrottleHit {
    this.keys.push(key)
    return this.inner.hit(key, now, windowMs, limit)
  }
}

describe('cache keys (drf-behaviors §10.6)', () => {
  it('AnonRateThrottle keys anonymous requests by address and skips authenticated users', async () => {
    const store = new RecordingStore()
    const throttle = new AnonRateThrottle({ store, rate: '1/min' })
    expect(throttle.getCacheKey(ctx(anonymousUser()))).toBe('throttle_anon_127.0.0.1')
    expect(throttle.getCacheKey(ctx(alice))).toBeNull()
    for (let i = 0; i < 3; i++) expect(await throttle.check(ctx(alice))).toEqual({ allowed: true })
    expect(store.keys).toEqual([])
  })

  it('UserRateThrottle keys by user id, else by address', () => {
    const throttle = new UserRateThrottle({ store: new MemoryThrottleStore(), rate: '1/min' })
    expect(throttle.getCacheKey(ctx(alice))).toBe('throttle_user_42')
    expect(throttle.getCacheKey(ctx(anonymousUser(), null, request('10.0.0.1')))).toBe('throttle_user_10.0.0.1')
  })

  it('a custom scope keeps two throttles of one class apart', () => {
    const throttle = new UserRateThrottle({ store: new MemoryThrottleStore(), rate: '1/min', scope: 'burst' })
    expect(throttle.getCacheKey(ctx(alice))).toBe('throttle_burst_42')
  })

  it('ScopedRateThrottle keys by the view scope and user id or address', () => {
    const throttle = new ScopedRateThrottle({ store: new MemoryThrottleStore(), rates: { uploads: '1/min' } })
    expect(throttle.getCacheKey(ctx(alice, 'uploads'))).toBe('throttle_uploads_42')
    expect(throttle.getCacheKey(ctx(anonymousUser(), 'uploads'))).toBe('throttle_uploads_127.0.0.1')
    expect(throttle.getCacheKey(ctx(alice, null))).toBeNull()
  })

  it('ScopedRateThrottle never throttles views without a scope', async () => {
    const store = new RecordingStore()
    const throttle = new ScopedRateThrottle({ store, rates: { uploads: '0/min' } })
    expect(await throttle.check(ctx(alice, null))).toEqual({ allowed: true })
    expect(store.keys).toEqual([])
  })

  it('ScopedRateThrottle answers a view scope missing from its rates with a ConfigurationError', async () => {
    const throttle = new ScopedRateThrottle({ store: new MemoryThrottleStore(), rates: { uploads: '1/min' } })
    await expect(throttle.check(ctx(alice, 'downloads'))).rejects.toThrow("No default throttle rate set for 'downloads' scope")
  })

  it('a null rate never throttles', async () => {
    const store = new RecordingStore()
    const anon = new AnonRateThrottle({ store, rate: null })
    const scoped = new ScopedRateThrottle({ store, rates: { uploads: null } })
    expect(await anon.check(ctx(anonymousUser()))).toEqual({ allowed: true })
    expect(await scoped.check(ctx(alice, 'uploads'))).toEqual({ allowed: true })
    expect(store.keys).toEqual([])
  })

  it('bad rate strings fail at construction', () => {
    const store = new MemoryThrottleStore()
    expect(() => new AnonRateThrottle({ store, rate: '5/10m' })).toThrow(ConfigurationError)
    expect(() => new UserRateThrottle({ store, rate: 'x/min' })).toThrow(ConfigurationError)
    expect(() => new ScopedRateThrottle({ store, rates: { ok: '1/min', bad: '1/fortnight' } })).toThrow(ConfigurationError)
  })

  it('numProxies comes from the option, else from the view settings', () => {
    const req = request('127.0.0.1', '9.9.9.9, 8.8.8.8')
    const fromOption = new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '1/min', numProxies: 1 })
    expect(fromOption.getCacheKey(ctx(anonymousUser(), null, req))).toBe('throttle_anon_8.8.8.8')
    const fromSettings = new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '1/min' })
    const withSettings = { ...ctx(anonymousUser(), null, req), settings: { numProxies: 2 } }
    expect(fromSettings.getCacheKey(withSettings)).toBe('throttle_anon_9.9.9.9')
    expect(fromSettings.getCacheKey(ctx(anonymousUser(), null, req))).toBe('throttle_anon_127.0.0.1')
  })
})

describe('wait() (drf-behaviors §10.4)', () => {
  it.each([
    // [count, oldest (ms), now (ms), limit, windowMs, expected seconds]
    [3, 0, 0, 3, 60_000, 60],
    [3, 0, 0, 3, 1_000, 1],
    [6, 0, 1_000, 6, 60_000, 59],
    [6, 0, 2_000, 6, 60_000, 58],
    [2, 30_000, 40_000, 2, 60_000, 50],
    [0, null, 0, 0, 60_000, 60],
    [5, 0, 0, 4, 60_000, 30], // free = 4 - 5 + 1 = 0 → null, checked below
  ] as const)('count %i, oldest %s, now %i, %i per %i ms', (count, oldest, now, limit, windowMs, expected) => {
    const wait = throttleWait({ allowed: false, count, oldest }, now, { limit, windowMs })
    if (count > limit) expect(wait).toBeNull()
    else expect(wait).toBe(expected)
  })
})

describe('throttles in the pipeline (drf-behaviors §9, §10.5)', () => {
  const ok = async (): Promise<ReturnType<typeof jsonResponse>> => jsonResponse(200, { ok: true })

  it('3/sec and 6/min: Retry-After 1, then 59, then 58 (DRF test_request_throttling_multiple_throttles)', async () => {
    const clock = fakeClock()
    const store = new MemoryThrottleStore()
    const api = createApi({
      throttles: [
        new UserRateThrottle({ store, rate: '3/sec', scope: 'seconds', now: clock.now }),
        new UserRateThrottle({ store, rate: '6/min', scope: 'minutes', now: clock.now }),
      ],
    })
    const view = api.view({ handlers: { GET: ok } })
    const get = (): ReturnType<typeof view.handle> => view.handle(request())
    const header = (response: Awaited<ReturnType<typeof get>>, name: string): string | undefined =>
      response.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1]

    let response = await get()
    for (let i = 0; i < 3; i++) response = await get()
    expect(response.status).toBe(429)
    expect(header(response, 'Retry-After')).toBe('1')
    expect(response.body).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' })

    clock.set(1)
    for (let i = 0; i < 2; i++) expect((await get()).status).toBe(200)
    response = await get()
    expect(response.status).toBe(429)
    expect(header(response, 'Retry-After')).toBe('59')
    expect(response.body).toEqual({ detail: 'Request was throttled. Expected available in 59 seconds.' })

    clock.set(2)
    response = await get()
    expect(response.status).toBe(429)
    expect(header(response, 'Retry-After')).toBe('58')
  })

  it('3/min with 3 requests at t=0 waits 60 seconds; refused requests are not recorded', async () => {
    const clock = fakeClock(100)
    const api = createApi({ throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '3/min', now: clock.now })] })
    const view = api.view({ handlers: { GET: ok } })
    for (let i = 0; i < 3; i++) expect((await view.handle(request())).status).toBe(200)
    const refused = await view.handle(request())
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ detail: 'Request was throttled. Expected available in 60 seconds.' })
    // Refusals at t=100..159 do not extend the window: at t=160 the three slots are free again.
    for (let t = 110; t < 160; t += 10) {
      clock.set(t)
      expect((await view.handle(request())).status).toBe(429)
    }
    clock.set(160)
    for (let i = 0; i < 3; i++) expect((await view.handle(request())).status).toBe(200)
    expect((await view.handle(request())).status).toBe(429)
  })

  it('a rate lowered below the recorded history refuses without Retry-After', async () => {
    const store = new MemoryThrottleStore()
    const clock = fakeClock()
    const wide = new AnonRateThrottle({ store, rate: '5/min', now: clock.now })
    const narrow = new AnonRateThrottle({ store, rate: '2/min', now: clock.now })
    for (let i = 0; i < 5; i++) await wide.check(ctx(anonymousUser()))
    const view = createApi({ throttles: [narrow] }).view({ handlers: { GET: ok } })
    const response = await view.handle(request())
    expect(response.status).toBe(429)
    expect(response.body).toEqual({ detail: 'Request was throttled.' })
    expect(response.headers.some(([name]) => name === 'Retry-After')).toBe(false)
  })

  it('every throttle runs even after one refused, and the largest wait wins', async () => {
    const clock = fakeClock()
    const store = new RecordingStore()
    const api = createApi({
      throttles: [
        new AnonRateThrottle({ store, rate: '1/min', scope: 'a', now: clock.now }),
        new AnonRateThrottle({ store, rate: '1/hour', scope: 'b', now: clock.now }),
      ],
    })
    const view = api.view({ handlers: { GET: ok } })
    await view.handle(request())
    const response = await view.handle(request())
    expect(store.keys).toEqual(['throttle_a_127.0.0.1', 'throttle_b_127.0.0.1', 'throttle_a_127.0.0.1', 'throttle_b_127.0.0.1'])
    expect(response.headers).toContainEqual(['Retry-After', '3600'])
  })

  it('per-view throttles replace the global list; a scoped view uses its throttleScope', async () => {
    const store = new MemoryThrottleStore()
    const api = createApi({ throttles: [new AnonRateThrottle({ store, rate: '0/min' })] })
    const open = api.view({ handlers: { GET: ok }, throttles: [] })
    const scoped = api.view({
      handlers: { GET: ok },
      throttleScope: 'uploads',
      throttles: [new ScopedRateThrottle({ store, rates: { uploads: '1/min' } })],
    })
    const global = api.view({ handlers: { GET: ok } })
    expect((await open.handle(request())).status).toBe(200)
    expect((await global.handle(request())).status).toBe(429)
    expect((await scoped.handle(request())).status).toBe(200)
    expect((await scoped.handle(request())).status).toBe(429)
  })

  it('X-Forwarded-For is ignored by default and honoured with numProxies', async () => {
    const store = new MemoryThrottleStore()
    const throttles = [new AnonRateThrottle({ store, rate: '1/min' })]
    const direct = createApi({ throttles }).view({ handlers: { GET: ok } })
    expect((await direct.handle(request('127.0.0.1', '1.1.1.1'))).status).toBe(200)
    expect((await direct.handle(request('127.0.0.1', '2.2.2.2'))).status).toBe(429)
    const proxied = createApi({ throttles, numProxies: 1 }).view({ handlers: { GET: ok } })
    expect((await proxied.handle(request('127.0.0.1', '3.3.3.3'))).status).toBe(200)
    expect((await proxied.handle(request('127.0.0.1', '3.3.3.3'))).status).toBe(429)
    expect((await proxied.handle(request('127.0.0.1', '4.4.4.4'))).status).toBe(200)
  })
})
