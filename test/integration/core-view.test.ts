import { describe, expect, it } from 'vitest'
import { buildRequest, type BuildRequestOptions } from '../helpers/build-request.js'
import { FakeSessionStore, FakeTokenStore, FakeUserStore } from '../helpers/fake-auth-stores.js'
import type { AuthenticationScheme } from '../../src/core/authentication-scheme.js'
import { BasicAuthentication } from '../../src/authentication/basic-authentication.js'
import { SessionAuthentication } from '../../src/authentication/session-authentication.js'
import { TokenAuthentication } from '../../src/authentication/token-authentication.js'
import { AllowAny } from '../../src/permissions/allow-any.js'
import { IsAdminUser } from '../../src/permissions/is-admin-user.js'
import { IsAuthenticated } from '../../src/permissions/is-authenticated.js'
import type { Permission } from '../../src/core/permission.js'
import type { Throttle, ThrottleDecision } from '../../src/core/throttle.js'
import { createApi } from '../../src/core/api.js'
import { jsonResponse, type ApiResponse } from '../../src/core/api-response.js'
import { AuthenticationFailed, WrappedSchemeError } from '../../src/core/errors.js'
import type { Settings } from '../../src/core/settings.js'
import type { Handler, ViewOptions } from '../../src/core/view.js'

const users = new FakeUserStore()
const sessions = new FakeSessionStore()
sessions.sessions.set('s-alice', { userId: 1, data: {}, expiresAt: new Date(Date.now() + 3_600_000) })
const basic = new BasicAuthentication({ users })
const token = new TokenAuthentication({ users, tokens: new FakeTokenStore([['b0b', 2]]) })
const session = new SessionAuthentication({ users, sessions })

const b64 = (text: string): string => Buffer.from(text).toString('base64')
const ALICE = `Basic ${b64('alice:alice-pass-1')}`
const BOB_TOKEN = 'Token b0b'

const whoami: Handler = async (ctx) =>
  jsonResponse(200, { user: ctx.user.username, auth: ctx.auth === null ? null : 'set', authenticated: ctx.user.isAuthenticated })

function view(settings: Partial<Settings>, options: Partial<ViewOptions> = {}): (req: BuildRequestOptions) => Promise<ApiResponse> {
  const v = createApi({ logError: () => undefined, ...settings }).view({ name: 'Test', handlers: { GET: whoami }, ...options })
  return async (req) => v.handle(buildRequest(req))
}

const header = (response: ApiResponse, name: string): string | undefined =>
  response.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]

const denied = (detail: unknown = 'You do not have permission to perform this action.'): Permission => ({
  hasPermission: () => false,
  ...(detail === undefined ? {} : { message: detail as string }),
})

describe('the 401/403 rule (drf-behaviors §2.6)', () => {
  it.each<[string, AuthenticationScheme[], Permission[], string | undefined, number, unknown, string | undefined]>([
    ['[Session, Basic], no credentials', [session, basic], [new IsAuthenticated()], undefined, 403, { detail: 'Authentication credentials were not provided.' }, undefined],
    ['[Basic], no credentials', [basic], [new IsAuthenticated()], undefined, 401, { detail: 'Authentication credentials were not provided.' }, 'Basic realm="api"'],
    ['[Token], no credentials', [token], [new IsAuthenticated()], undefined, 401, { detail: 'Authentication credentials were not provided.' }, 'Token'],
    ['[Session, Token], bad token', [session, token], [new IsAuthenticated()], 'Token nope', 403, { detail: 'Invalid token.' }, undefined],
    ['[Token, Session], bad token', [token, session], [new IsAuthenticated()], 'Token nope', 401, { detail: 'Invalid token.' }, 'Token'],
    ['[Basic] + IsAdminUser, anonymous', [basic], [new IsAdminUser()], undefined, 401, { detail: 'Authentication credentials were not provided.' }, 'Basic realm="api"'],
    ['[Basic] + IsAdminUser, non-staff', [basic], [new IsAdminUser()], ALICE, 403, { detail: 'You do not have permission to perform this action.' }, undefined],
    ['[] + failing permission', [], [denied()], undefined, 403, { detail: 'You do not have permission to perform this action.' }, undefined],
    ['[] + failing permission with a message', [], [denied('Go away.')], undefined, 403, { detail: 'Go away.' }, undefined],
    ['[] + failing permission with a dict message', [], [denied({ reason: 'closed', code: 7 })], undefined, 403, { reason: 'closed', code: 7 }, undefined],
    ['[Basic] + failing permission, anonymous: message dropped', [basic], [denied('Go away.')], undefined, 401, { detail: 'Authentication credentials were not provided.' }, 'Basic realm="api"'],
    ['[Basic] + failing permission, authenticated: message kept', [basic], [denied('Go away.')], ALICE, 403, { detail: 'Go away.' }, undefined],
    ['[Basic] + AllowAny, malformed Basic', [basic], [new AllowAny()], 'Basic =a=', 401, { detail: 'Invalid basic header. Credentials not correctly base64 encoded.' }, 'Basic realm="api"'],
    ['[Session, Basic] + AllowAny, malformed Basic', [session, basic], [new AllowAny()], 'Basic =a=', 403, { detail: 'Invalid basic header. Credentials not correctly base64 encoded.' }, undefined],
    ['[Token, Basic], Bearer is "no credentials"', [token, basic], [new IsAuthenticated()], 'Bearer b0b', 401, { detail: 'Authentication credentials were not provided.' }, 'Token'],
    ['[Token, Basic], Basic works after Token', [token, basic], [new IsAuthenticated()], ALICE, 200, { user: 'alice', auth: null, authenticated: true }, undefined],
    ['[Token, Basic], token', [token, basic], [new IsAuthenticated()], BOB_TOKEN, 200, { user: 'bob', auth: 'set', authenticated: true }, undefined],
  ])('%s → %i', async (_name, authentication, permissions, authorization, status, body, challenge) => {
    const response = await view({ authentication, permissions })({ headers: authorization === undefined ? {} : { Authorization: authorization } })
    expect(response.status).toBe(status)
    expect(response.body).toEqual(body)
    expect(header(response, 'WWW-Authenticate')).toBe(challenge)
  })

  it("a refusing permission's deniedHeaders go on its 403 (after the handler's own), not on an anonymous request's 401", async () => {
    const scoped: Permission = { hasPermission: () => false, deniedHeaders: (ctx) => [['WWW-Authenticate', `Bearer error="insufficient_scope", scope="${ctx.user.username ?? ''}"`]] }
    const refused = await view({ authentication: [basic], permissions: [scoped] })({ headers: { Authorization: ALICE } })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ detail: 'You do not have permission to perform this action.' })
    expect(header(refused, 'WWW-Authenticate')).toBe('Bearer error="insufficient_scope", scope="alice"')
    const anonymous = await view({ authentication: [basic], permissions: [scoped] })({})
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.filter(([k]) => k.toLowerCase() === 'www-authenticate')).toEqual([['WWW-Authenticate', 'Basic realm="api"']])
  })

  it('a CSRF failure is 403 even when the first scheme has a challenge', async () => {
    const response = await view({ authentication: [basic, session], permissions: [new AllowAny()] }, { handlers: { POST: whoami } })({
      method: 'POST',
      headers: { Cookie: 'sessionid=s-alice' },
    })
    expect(response.status).toBe(403)
    expect(response.body).toEqual({ detail: 'CSRF Failed: CSRF cookie not set.' })
    expect(header(response, 'WWW-Authenticate')).toBeUndefined()
  })
})

describe('the authentication loop', () => {
  function spyScheme(result: 'null' | 'fail' | 'throw' | 'user', calls: string[], name: string = result): AuthenticationScheme {
    return {
      name: `Spy(${name})`,
      async authenticate() {
        calls.push(name)
        if (result === 'null') return null
        if (result === 'fail') throw new AuthenticationFailed('nope')
        if (result === 'throw') throw new TypeError('boom in scheme')
        return { user: (await users.findByUsername('admin'))!, auth: { kind: 'spy' } }
      },
    }
  }

  it('the first pair wins; later schemes are not run', async () => {
    const calls: string[] = []
    const response = await view({ authentication: [spyScheme('null', calls), spyScheme('user', calls), spyScheme('user', calls, 'late')] })({})
    expect(calls).toEqual(['null', 'user'])
    expect(response.body).toMatchObject({ user: 'admin', auth: 'set' })
  })

  it('AuthenticationFailed stops later schemes and skips permissions', async () => {
    const calls: string[] = []
    const permission: Permission = { hasPermission: () => (calls.push('permission'), true) }
    const response = await view({ authentication: [spyScheme('fail', calls), spyScheme('user', calls)], permissions: [permission] })({})
    expect(calls).toEqual(['fail'])
    expect(response.status).toBe(403) // a spy has no challenge
    expect(response.body).toEqual({ detail: 'nope' })
  })

  it('a plain Error in a scheme is a logged 500 naming the scheme, never "anonymous"', async () => {
    const calls: string[] = []
    const logged: unknown[] = []
    const v = createApi({
      authentication: [spyScheme('throw', calls), spyScheme('user', calls)],
      logError: (error, context) => logged.push(error, context),
    }).view({ handlers: { GET: whoami } })
    const response = await v.handle(buildRequest({ url: 'http://testserver/api/p/' }))
    expect(response.status).toBe(500)
    expect(response.body).toEqual({ detail: 'A server error occurred.' })
    expect(calls).toEqual(['throw'])
    expect(logged[0]).toBeInstanceOf(WrappedSchemeError)
    expect((logged[0] as WrappedSchemeError).message).toContain('Spy(throw)')
    expect((logged[0] as WrappedSchemeError).message).toContain('boom in scheme')
    expect((logged[0] as WrappedSchemeError).cause).toBeInstanceOf(TypeError)
    expect(logged[1]).toEqual({ method: 'GET', path: '/api/p/' })
  })

  it('a class-based scheme without a name is named after its class', async () => {
    class Broken implements AuthenticationScheme {
      async authenticate(): Promise<null> {
        throw new Error('x')
      }
    }
    const logged: unknown[] = []
    await createApi({ authentication: [new Broken()], logError: (e) => logged.push(e) })
      .view({ handlers: { GET: whoami } })
      .handle(buildRequest())
    expect((logged[0] as WrappedSchemeError).scheme).toBe('Broken')
  })

  it('unauthenticatedUser and unauthenticatedToken are replaceable', async () => {
    const guest = { id: null, username: 'guest', isActive: false, isStaff: false, isAuthenticated: false }
    const response = await view({ authentication: [basic], unauthenticatedUser: () => guest, unauthenticatedToken: () => 'anon-token' })({})
    expect(response.body).toEqual({ user: 'guest', auth: 'set', authenticated: false })
  })

  it('with no scheme succeeding, the user is anonymous and auth is null', async () => {
    const response = await view({ authentication: [basic, token] })({})
    expect(response.body).toEqual({ user: null, auth: null, authenticated: false })
  })
})

describe('methods, negotiation and headers', () => {
  const noop: Handler = async () => jsonResponse(200, { ok: true })

  it.each<[string, ViewOptions['handlers'], string]>([
    ['GET', { GET: noop }, 'GET, HEAD, OPTIONS'],
    ['GET, POST', { POST: noop, GET: noop }, 'GET, POST, HEAD, OPTIONS'],
    ['POST', { POST: noop }, 'POST, OPTIONS'],
    ['all', { DELETE: noop, PATCH: noop, PUT: noop, POST: noop, GET: noop }, 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS'],
  ])('Allow for %s handlers is in DRF order', async (_name, handlers, allow) => {
    const v = createApi().view({ handlers })
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
      expect(header(await v.handle(buildRequest({ method })), 'Allow')).toBe(allow)
    }
  })

  it('Allow is on error responses too', async () => {
    const response = await view({ authentication: [basic], permissions: [new IsAuthenticated()] })({})
    expect(response.status).toBe(401)
    expect(header(response, 'Allow')).toBe('GET, HEAD, OPTIONS')
  })

  it('405 after authentication and permissions, with DRF message', async () => {
    const open = view({})
    const response = await open({ method: 'DELETE' })
    expect(response.status).toBe(405)
    expect(response.body).toEqual({ detail: 'Method "DELETE" not allowed.' })
    const closed = await view({ authentication: [basic], permissions: [new IsAuthenticated()] })({ method: 'DELETE' })
    expect(closed.status).toBe(401)
  })

  it('HEAD without GET is 405; HEAD with GET has the GET status and headers but no body', async () => {
    const postOnly = await view({}, { handlers: { POST: whoami } })({ method: 'HEAD' })
    expect(postOnly.status).toBe(405)
    expect(postOnly.body).toBeUndefined()
    const head = await view({})({ method: 'HEAD' })
    const get = await view({})({ method: 'GET' })
    expect(head.status).toBe(200)
    expect(head.body).toBeUndefined()
    expect(head.headers).toEqual(get.headers)
    const headDenied = await view({ authentication: [token], permissions: [new IsAuthenticated()] })({ method: 'HEAD' })
    expect(headDenied.status).toBe(401)
    expect(headDenied.body).toBeUndefined()
    expect(header(headDenied, 'WWW-Authenticate')).toBe('Token')
  })

  it('406 comes before authentication', async () => {
    const calls: string[] = []
    const scheme: AuthenticationScheme = { authenticate: async () => (calls.push('auth'), null) }
    const response = await view({ authentication: [scheme], permissions: [new IsAuthenticated()] })({ headers: { Accept: 'application/xml' } })
    expect(response.status).toBe(406)
    expect(response.body).toEqual({ detail: 'Could not satisfy the request Accept header.' })
    expect(calls).toEqual([])
  })

  it('?format= picks a renderer; an unknown one is 404 before authentication', async () => {
    const v = view({ authentication: [token], permissions: [new IsAuthenticated()] })
    expect((await v({ url: 'http://testserver/api/?format=xml' })).status).toBe(404)
    expect((await v({ url: 'http://testserver/api/?format=xml' })).body).toEqual({ detail: 'Not found.' })
    expect((await v({ url: 'http://testserver/api/?format=json' })).status).toBe(401)
    const json = await view({})({ url: 'http://testserver/api/?format=json', headers: { Accept: 'text/html' } })
    expect(json.status).toBe(406)
  })

  it('?format=html is no renderer (DRF names the HTML one `api`): 404 before authentication and before Accept', async () => {
    const v = view({ authentication: [token], permissions: [new IsAuthenticated()] })
    expect((await v({ url: 'http://testserver/api/?format=html' })).status).toBe(404)
    expect((await v({ url: 'http://testserver/api/?format=html', headers: { Accept: 'application/json ;q=1' } })).body).toEqual({ detail: 'Not found.' })
    const page = await view({})({ url: 'http://testserver/api/?format=api' })
    expect(header(page, 'Content-Type')).toMatch(/^text\/html/)
  })

  it('a repeated ?format= counts by its last value, as Django\'s QueryDict.get; an empty one is no override', async () => {
    const open = view({})
    expect(header(await open({ url: 'http://testserver/api/?format=json&format=api' }), 'Content-Type')).toMatch(/^text\/html/)
    expect((await open({ url: 'http://testserver/api/?format=api&format=7' })).status).toBe(404)
    const none = await open({ url: 'http://testserver/api/?format=3&format=' })
    expect([none.status, header(none, 'Content-Type')]).toEqual([200, 'application/json'])
    expect((await open({ url: 'http://testserver/api/?form%61t=xml' })).status).toBe(404)
  })

  it('a view\'s own `vary` goes after Accept and what the schemes read, and is not shown on the HTML page', async () => {
    const v = view({ authentication: [token] }, { vary: ['Cookie'] })
    expect(header(await v({}), 'Vary')).toBe('Accept, Cookie')
    const page = await v({ headers: { Accept: 'text/html' } })
    expect(header(page, 'Vary')).toBe('Accept, Cookie')
    expect(String(page.body)).not.toContain('Vary: Accept, Cookie')
    // Only answers a handler gave: a refusal before it (406 here) does not vary on Cookie.
    expect(header(await v({ headers: { Accept: 'garbage' } }), 'Vary')).toBe('Accept')
  })

  it('Vary: Accept only when the view renders more than one format (by default JSON and HTML, as DRF)', async () => {
    expect(header(await view({})({}), 'Vary')).toBe('Accept')
    const one = createApi().view({ handlers: { GET: whoami }, formats: ['json'] })
    expect(header(await one.handle(buildRequest()), 'Vary')).toBeUndefined()
  })

  it('Vary: Cookie whenever the session scheme was consulted (Django session middleware)', async () => {
    const tokenFirst = view({ authentication: [token, session], permissions: [new AllowAny()] }, { formats: ['json'] })
    expect(header(await tokenFirst({ headers: { Authorization: BOB_TOKEN } }), 'Vary')).toBeUndefined()
    expect(header(await tokenFirst({}), 'Vary')).toBe('Cookie')
    expect(header(await tokenFirst({ headers: { Cookie: 'sessionid=s-alice' } }), 'Vary')).toBe('Cookie')
    // Token failed first: the session scheme never ran.
    expect(header(await tokenFirst({ headers: { Authorization: 'Token nope' } }), 'Vary')).toBeUndefined()
    // A CSRF failure is still a consulted session.
    const post = view({ authentication: [session] }, { handlers: { POST: whoami }, formats: ['json'] })
    expect(header(await post({ method: 'POST', headers: { Cookie: 'sessionid=s-alice' } }), 'Vary')).toBe('Cookie')
    expect(header(await view({ authentication: [basic, token] }, { formats: ['json'] })({}), 'Vary')).toBeUndefined()
  })

  it('one merged Vary header: the handler\'s values, then Accept, then the schemes\'', async () => {
    const v = createApi({ authentication: [session] }).view({
      formats: ['json', 'html'],
      handlers: { GET: async () => jsonResponse(200, {}, [['Vary', 'Origin, accept'], ['vary', 'X-Tenant']]) },
    })
    const response = await v.handle(buildRequest())
    expect(response.headers.filter(([k]) => k.toLowerCase() === 'vary')).toEqual([['Vary', 'Origin, accept, X-Tenant, Cookie']])
  })

  it('OPTIONS answers metadata after the policies', async () => {
    const response = await view({}, { name: 'Who Am I', description: 'Says who.' })({ method: 'OPTIONS' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      name: 'Who Am I',
      description: 'Says who.',
      renders: ['application/json', 'text/html'],
      parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
    })
    const jsonOnly = await view({}, { formats: ['json'] })({ method: 'OPTIONS' })
    expect((jsonOnly.body as { renders: unknown }).renders).toEqual(['application/json'])
    const denied = await view({ authentication: [token], permissions: [new IsAuthenticated()] })({ method: 'OPTIONS' })
    expect(denied.status).toBe(401)
  })

  it('OPTIONS shows `actions` for the body methods the requester may send, in DRF\'s key order (SimpleMetadata)', async () => {
    const noop: Handler = async () => jsonResponse(200, {})
    // Declared out of DRF's key order: the answer is in DRF's order.
    const title = { max_length: 200, label: 'Title', read_only: false, required: true, type: 'string' } as const
    const actions = {
      POST: { id: { type: 'integer', required: false, read_only: true, label: 'ID' }, title },
      PUT: { title },
    } as const
    const readOnlyForAnonymous: Permission = { hasPermission: (ctx) => ctx.user.isAuthenticated || ['GET', 'HEAD', 'OPTIONS'].includes(ctx.request.method) }
    const v = view({ authentication: [token], permissions: [readOnlyForAnonymous] }, { handlers: { GET: noop, POST: noop }, actions })
    const anonymous = await v({ method: 'OPTIONS' })
    expect(anonymous.status).toBe(200)
    // The permission, asked about POST for the anonymous requester, says no: no actions at all.
    expect(anonymous.body).not.toHaveProperty('actions')
    const bob = await v({ method: 'OPTIONS', headers: { Authorization: 'Token b0b' } })
    // PUT has fields but no handler: left out, as DRF only looks at the view's allowed methods.
    expect(JSON.stringify((bob.body as { actions: unknown }).actions)).toBe(
      '{"POST":{"id":{"type":"integer","required":false,"read_only":true,"label":"ID"},"title":{"type":"string","required":true,"read_only":false,"label":"Title","max_length":200}}}',
    )
    expect(Object.keys(bob.body as object)).toEqual(['name', 'description', 'renders', 'parses', 'actions'])
    // Without declared actions, OPTIONS is as before.
    expect((await view({}, { handlers: { POST: noop } })({ method: 'OPTIONS' })).body).not.toHaveProperty('actions')
  })

  it('a handler error is a 500 with the generic body, logged', async () => {
    const logged: unknown[] = []
    const v = createApi({ logError: (e) => logged.push(e) }).view({
      handlers: {
        GET: async () => {
          throw new Error('secret connection string')
        },
      },
    })
    const response = await v.handle(buildRequest())
    expect(response.status).toBe(500)
    expect(response.body).toEqual({ detail: 'A server error occurred.' })
    expect(JSON.stringify(response.body)).not.toContain('secret')
    expect(logged).toHaveLength(1)
  })
})

describe('throttles (drf-behaviors §2.1 step 7, §9)', () => {
  function fakeThrottle(decision: ThrottleDecision, calls: string[], name: string): Throttle {
    return {
      async check() {
        calls.push(name)
        return decision
      },
    }
  }

  it('are consulted only after the permissions pass, all of them', async () => {
    const calls: string[] = []
    const throttles = [fakeThrottle({ allowed: false, waitSeconds: 3 }, calls, 'a'), fakeThrottle({ allowed: true }, calls, 'b')]
    const anonymous = await view({ authentication: [basic], permissions: [new IsAuthenticated()], throttles })({})
    expect(anonymous.status).toBe(401)
    expect(calls).toEqual([])
    const ok = await view({ authentication: [basic], permissions: [new IsAuthenticated()], throttles })({ headers: { Authorization: ALICE } })
    expect(ok.status).toBe(429)
    expect(calls).toEqual(['a', 'b'])
  })

  it.each<[string, (number | null)[], string, string | undefined]>([
    ['0.2 s', [0.2], 'Request was throttled. Expected available in 1 second.', '1'],
    ['59.01 s', [59.01], 'Request was throttled. Expected available in 60 seconds.', '60'],
    ['exactly 2 s', [2], 'Request was throttled. Expected available in 2 seconds.', '2'],
    ['no wait', [null], 'Request was throttled.', undefined],
    ['wait 0', [0], 'Request was throttled. Expected available in 0 seconds.', undefined],
    ['the longest wait, None ignored', [null, 3, 12.5, 1], 'Request was throttled. Expected available in 13 seconds.', '13'],
  ])('429 for %s', async (_name, waits, detail, retryAfter) => {
    const calls: string[] = []
    const throttles = waits.map((w, i) => fakeThrottle({ allowed: false, waitSeconds: w }, calls, String(i)))
    const response = await view({ throttles })({})
    expect(response.status).toBe(429)
    expect(response.body).toEqual({ detail })
    expect(header(response, 'Retry-After')).toBe(retryAfter)
  })

  it('a throttle that allows lets the handler run', async () => {
    const response = await view({ throttles: [fakeThrottle({ allowed: true }, [], 'x')] })({})
    expect(response.status).toBe(200)
  })
})

describe('format negotiation remembered per Accept header', () => {
  it('answers each header as negotiation would, in any order: absent, empty, HTML, ?format=', async () => {
    const handle = view({})
    const type = async (req: BuildRequestOptions): Promise<[number, string | undefined]> => {
      const response = await handle(req)
      return [response.status, header(response, 'content-type')]
    }
    for (let round = 0; round < 2; round++) {
      expect(await type({})).toEqual([200, 'application/json'])
      expect((await type({ headers: { accept: '' } }))[0]).toBe(406)
      expect(await type({ headers: { accept: 'text/html' } })).toEqual([200, 'text/html; charset=utf-8'])
      expect(await type({ url: 'http://testserver/?format=api' })).toEqual([200, 'text/html; charset=utf-8'])
      expect(await type({ url: 'http://testserver/?%66ormat=api' })).toEqual([200, 'text/html; charset=utf-8'])
      expect((await type({ headers: { accept: 'text/html' }, url: 'http://testserver/?format=json' }))[0]).toBe(406)
      expect((await type({ url: 'http://testserver/?format=xml' }))[0]).toBe(404)
    }
  })
})
