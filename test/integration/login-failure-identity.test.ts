/**
 * Which client and which account a failed login counts against (issue 36 items 3 and 11):
 * the client address found with the API's `numProxies` (as the rate throttles find it), no
 * pair or address budget on an unknown address that every client would share, and one
 * budget for every spelling the user store resolves to one account.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { mountRoutes, type GatehouseEnv } from '../../src/adapters/hono/index.js'
import { BasicAuthentication } from '../../src/authentication/basic-authentication.js'
import { jsonResponse } from '../../src/core/api-response.js'
import { createApi } from '../../src/core/api.js'
import type { ApiResponse } from '../../src/core/api-response.js'
import { route } from '../../src/core/route.js'
import type { StoredUser } from '../../src/core/user.js'
import { IsAuthenticated } from '../../src/permissions/is-authenticated.js'
import { LoginFailureThrottle } from '../../src/throttling/login-failure-throttle.js'
import { MemoryThrottleStore } from '../../src/throttling/memory-throttle-store.js'
import { obtainAuthTokenView } from '../../src/views/obtain-auth-token.js'
import { buildRequest } from '../helpers/build-request.js'
import { FakeTokenStore, FakeUserStore } from '../helpers/fake-auth-stores.js'

const basic = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`

/** A user store whose lookups ignore case (a `citext` column), and say so with `canonicalUsername`. */
class CaseInsensitiveUsers extends FakeUserStore {
  canonicalUsername(username: string): string {
    return username.toLowerCase()
  }

  override async authenticate(username: string, password: string): Promise<StoredUser | null> {
    return super.authenticate(username.toLowerCase(), password)
  }
}

/** An API whose one view needs Basic credentials, counted by `loginFailures`, with `numProxies` in its settings only. */
function basicApi(loginFailures: LoginFailureThrottle, numProxies: number, users = new FakeUserStore()) {
  const api = createApi({ numProxies, authentication: [new BasicAuthentication({ users, loginFailures })], permissions: [new IsAuthenticated()] })
  const view = api.view({ name: 'Who', handlers: { GET: async (ctx) => jsonResponse(200, { username: ctx.user.username }) } })
  return async (username: string, password: string, peer: string | null, forwarded?: string): Promise<ApiResponse> =>
    view.handle(buildRequest({ remoteAddress: peer, headers: { authorization: basic(username, password), ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }) } }))
}

describe('LoginFailureThrottle: the client address comes from the API’s numProxies', () => {
  it('behind one proxy, each forwarded client has its own pair budget: a guesser does not lock the owner out', async () => {
    const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '2/min' })
    const send = basicApi(loginFailures, 1)
    const proxy = '10.0.0.1'
    expect((await send('alice', 'guess', proxy, '198.51.100.66')).status).toBe(401)
    expect((await send('alice', 'guess', proxy, '198.51.100.66')).status).toBe(401)
    // The guesser's own address is refused, the right password included...
    expect((await send('alice', 'alice-pass-1', proxy, '198.51.100.66')).status).toBe(429)
    // ...but alice, through the same proxy from her own address, logs in.
    expect((await send('alice', 'alice-pass-1', proxy, '198.51.100.7')).status).toBe(200)
    // An explicit numProxies option still wins over the API's: with 0, every client is the proxy.
    const explicit = basicApi(new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '1/min', numProxies: 0 }), 1)
    expect((await explicit('alice', 'guess', proxy, '198.51.100.66')).status).toBe(401)
    expect((await explicit('alice', 'alice-pass-1', proxy, '198.51.100.7')).status).toBe(429)
  })

  it('the obtain view counts by the API’s numProxies too', async () => {
    const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '1/min' })
    const api = createApi({ numProxies: 1 })
    const view = api.view(obtainAuthTokenView({ users: new FakeUserStore(), tokens: new FakeTokenStore(), loginFailures }))
    const post = async (password: string, forwarded: string): Promise<ApiResponse> =>
      view.handle(
        buildRequest({
          method: 'POST',
          remoteAddress: '10.0.0.1',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
          body: JSON.stringify({ username: 'bob', password }),
        }),
      )
    expect((await post('guess', '198.51.100.66')).status).toBe(400)
    expect((await post('bob-pass-2', '198.51.100.66')).status).toBe(429)
    expect((await post('bob-pass-2', '198.51.100.8')).status).toBe(200)
  })
})

describe('LoginFailureThrottle: an unknown client address', () => {
  it('carries no pair or address budget (counted per username only) and is warned about once', async () => {
    const warnings: string[] = []
    const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '2/min', warn: (m) => warnings.push(m) })
    const send = basicApi(loginFailures, 0)
    // A guesser's wrong passwords (more than the pair's 2) do not lock alice out...
    for (let i = 0; i < 5; i++) expect((await send('alice', 'guess', null)).status).toBe(401)
    expect((await send('alice', 'alice-pass-1', null)).status).toBe(200)
    // ...and spraying (more than the address's 20) blocks no one else's login.
    for (let i = 0; i < 25; i++) expect((await send(`nobody-${i}`, 'guess', null)).status).toBe(401)
    expect((await send('bob', 'bob-pass-2', null)).status).toBe(200)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/client address is unknown/)
    // The per-username budget (10 × 2) still caps guesses at one account.
    for (let i = 0; i < 15; i++) await send('alice', 'guess', null)
    expect((await send('alice', 'alice-pass-1', null)).status).toBe(429)
  })

  it('on Hono without getConnInfo (every client is unknown), a guesser does not lock the owner out', async () => {
    const warnings: string[] = []
    const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '2/min', warn: (m) => warnings.push(m) })
    const api = createApi({ authentication: [new BasicAuthentication({ users: new FakeUserStore(), loginFailures })], permissions: [new IsAuthenticated()] })
    const app = new Hono<GatehouseEnv>()
    mountRoutes(app, [route('/who/', api.view({ name: 'Who', handlers: { GET: async (ctx) => jsonResponse(200, { username: ctx.user.username }) } }))])
    const get = async (username: string, password: string): Promise<number> => (await app.request('/who/', { headers: { authorization: basic(username, password) } })).status
    for (let i = 0; i < 4; i++) expect(await get('alice', 'guess')).toBe(401)
    expect(await get('alice', 'alice-pass-1')).toBe(200)
    expect(warnings).toHaveLength(1)
  })
})

describe('LoginFailureThrottle: one budget per account the store resolves (canonicalUsername)', () => {
  it('case variants of one name share its pair budget when the store folds case', async () => {
    const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '3/min' })
    const send = basicApi(loginFailures, 0, new CaseInsensitiveUsers())
    expect((await send('alice', 'alice-pass-1', '192.0.2.1')).status).toBe(200)
    expect((await send('ALICE', 'alice-pass-1', '192.0.2.1')).status).toBe(200)
    for (const name of ['Alice', 'aLice', 'alIce']) expect((await send(name, 'guess', '192.0.2.1')).status).toBe(401)
    // A fourth spelling is the same account: its budget is spent.
    expect((await send('ALICE', 'alice-pass-1', '192.0.2.1')).status).toBe(429)
    expect(loginFailures.keys(buildRequest({ remoteAddress: '192.0.2.1' }), 'alice').user).toBe(
      loginFailures.keys(buildRequest({ remoteAddress: '192.0.2.1' }), new CaseInsensitiveUsers().canonicalUsername('AlIcE')).user,
    )
    // Without the hook (an exact store: other spellings are other accounts), names count as sent.
    const exact = basicApi(new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '1/min' }), 0)
    expect((await exact('Alice', 'guess', '192.0.2.2')).status).toBe(401)
    expect((await exact('alice', 'alice-pass-1', '192.0.2.2')).status).toBe(200)
  })

})
