/**
 * OAuth2Authentication against answers a real provider would not give, served by the fake
 * provider (test/helpers/fake-provider.ts) over real loopback HTTP: introspection answers
 * without `aud` or `iss`, with a foreign `iss`, a non-boolean `active`, a future `nbf`, another
 * `token_type`; an `https:` issuer whose discovery document points at plain `http:`; floods of
 * made-up tokens against the answer cache and the cap on introspections in flight.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { startFakeProvider, type FakeProvider } from '../../test/helpers/fake-provider.js'
import { jsonResponse } from '../core/api-response.js'
import { createApi } from '../core/api.js'
import { accessTokenOf } from './access-token.js'
import { INTROSPECTION_BUSY_DETAIL, OAuth2Authentication, PROVIDER_UNAVAILABLE_DETAIL, type OAuth2AuthenticationOptions } from './oauth2-authentication.js'
import { TokenHasScope } from './scope-permissions.js'

const API = 'https://notes.gatehouse.test'
const RS = Object.freeze({ id: 'notes-api', secret: 'notes-api-introspection-secret-42' })
const BASIC = `Basic ${Buffer.from(`${RS.id}:${RS.secret}`).toString('base64')}`

let provider: FakeProvider
beforeAll(async () => {
  provider = await startFakeProvider({ client: RS })
})
afterAll(async () => provider?.close())
beforeEach(() => {
  provider.answers.clear()
  provider.routes.clear()
  provider.discovery = { issuer: provider.origin, jwks_uri: `${provider.origin}/jwks`, introspection_endpoint: `${provider.origin}/introspect` }
  provider.introspect = (token) => provider.answers.get(token) ?? { active: false }
})

function scheme(options: Partial<OAuth2AuthenticationOptions> = {}, lines: string[] = []): OAuth2Authentication {
  return new OAuth2Authentication({
    issuer: provider.origin,
    audience: API,
    introspection: { clientId: RS.id, clientSecret: RS.secret },
    retryAfterMs: 0,
    timeoutMs: 3000,
    errorDescription: true,
    log: (line) => lines.push(line),
    ...options,
  })
}

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
}

/** A GET of a view guarded by `s` (scope `read`) with `Authorization: Bearer <token>`. */
async function call(s: OAuth2Authentication, token: string): Promise<Answer> {
  const view = createApi({ logError: () => undefined }).view({
    name: 'Notes',
    handlers: { GET: async (ctx) => jsonResponse(200, { user: ctx.user.username, scopes: accessTokenOf(ctx.auth)?.scopes ?? null }) },
    authentication: [s],
    permissions: [new TokenHasScope('read')],
  })
  const response = await view.handle(buildRequest({ headers: { Authorization: `Bearer ${token}` } }))
  return { status: response.status, body: response.body, headers: Object.fromEntries(response.headers.map(([k, v]) => [k.toLowerCase(), v])) }
}

const seconds = (): number => Math.floor(Date.now() / 1000)

/** An active answer that passes every check; `changes` set a field, or leave it out with `undefined`. */
function activeAnswer(changes: Record<string, unknown> = {}): Record<string, unknown> {
  const answer: Record<string, unknown> = { active: true, iss: provider.origin, aud: API, sub: 'alice', client_id: 'notes-app', scope: 'read write', token_type: 'Bearer', iat: seconds(), exp: seconds() + 300, ...changes }
  for (const [k, v] of Object.entries(answer)) if (v === undefined) delete answer[k]
  return answer
}

let tokenCount = 0
/** A fresh opaque token whose introspection answer is `answer`. */
function opaque(answer: unknown): string {
  const token = `opaque-${++tokenCount}-${Math.random().toString(36).slice(2)}`
  provider.answers.set(token, answer)
  return token
}

const posted = (token: string): number => provider.requestsTo('/introspect').filter((r) => r.form.get('token') === token).length

describe('introspection answers the checks refuse', () => {
  it('a good answer: 200; the POST carries the token and the client\'s Basic credentials', async () => {
    const token = opaque(activeAnswer())
    expect(await call(scheme(), token)).toMatchObject({ status: 200, body: { user: 'alice', scopes: ['read', 'write'] } })
    const request = provider.requestsTo('/introspect').at(-1)
    expect(request?.method).toBe('POST')
    expect(request?.headers.authorization).toBe(BASIC)
    expect(request?.form.get('token')).toBe(token)
    expect(request?.form.get('token_type_hint')).toBe('access_token')
  })

  it('active must be exactly true: "false", "true", 1, "1", null, {} or no active at all are inactive', async () => {
    const s = scheme()
    for (const active of ['false', 'true', 1, '1', null, {}, undefined]) {
      const answer = await call(s, opaque(activeAnswer({ active })))
      expect(answer, JSON.stringify(active)).toMatchObject({ status: 401, body: { detail: 'The access token is not active.' } })
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token", error_description="The access token is not active."')
    }
  })

  it('aud: an answer without one is refused while requireAudience (the default); one naming only another API always', async () => {
    const withoutAud = opaque(activeAnswer({ aud: undefined }))
    const message = 'The access token is not meant for this API.'
    expect(await call(scheme(), withoutAud)).toMatchObject({ status: 401, body: { detail: message } })
    expect(await call(scheme(), opaque(activeAnswer({ aud: [] })))).toMatchObject({ status: 401, body: { detail: message } })
    for (const aud of ['https://other.gatehouse.test', ['https://other.gatehouse.test'], [`${API}/`]]) {
      expect(await call(scheme({ introspection: { clientId: RS.id, clientSecret: RS.secret, requireAudience: false } }), opaque(activeAnswer({ aud })))).toMatchObject({ status: 401, body: { detail: message } })
    }
    // Opting out accepts the answer without aud; the audience among others is accepted either way.
    expect((await call(scheme({ introspection: { clientId: RS.id, clientSecret: RS.secret, requireAudience: false } }), withoutAud)).status).toBe(200)
    expect((await call(scheme(), opaque(activeAnswer({ aud: ['https://other.gatehouse.test', API] })))).status).toBe(200)
  })

  it('iss: a foreign issuer is always refused, a missing one while requireIssuer (the default)', async () => {
    const message = 'The access token is from another issuer.'
    const lax = scheme({ introspection: { clientId: RS.id, clientSecret: RS.secret, requireIssuer: false } })
    for (const iss of ['https://evil.example/', `${provider.origin}/`, provider.origin.replace('127.0.0.1', 'localhost'), 42]) {
      expect(await call(scheme(), opaque(activeAnswer({ iss }))), String(iss)).toMatchObject({ status: 401, body: { detail: message } })
      expect((await call(lax, opaque(activeAnswer({ iss })))).status, String(iss)).toBe(401)
    }
    const withoutIss = opaque(activeAnswer({ iss: undefined }))
    expect(await call(scheme(), withoutIss)).toMatchObject({ status: 401, body: { detail: message } })
    expect((await call(lax, withoutIss)).status).toBe(200)
  })

  it('nbf in the future past the leeway: 401 "not valid yet"; within it: 200', async () => {
    expect(await call(scheme({ leeway: 5 }), opaque(activeAnswer({ nbf: seconds() + 120 })))).toMatchObject({ status: 401, body: { detail: 'The access token is not valid yet.' } })
    expect((await call(scheme({ leeway: 5 }), opaque(activeAnswer({ nbf: seconds() + 2 })))).status).toBe(200)
    expect((await call(scheme(), opaque(activeAnswer({ nbf: seconds() - 60 })))).status).toBe(200)
  })

  it('token_type: a refresh token or a DPoP-bound token is not a bearer access token; Bearer and access_token are', async () => {
    for (const type of ['refresh_token', 'urn:ietf:params:oauth:token-type:refresh_token', 'DPoP', 'N_A']) {
      expect(await call(scheme(), opaque(activeAnswer({ token_type: type }))), type).toMatchObject({ status: 401, body: { detail: 'The token is not an access token.' } })
    }
    for (const type of ['Bearer', 'bearer', 'access_token', undefined]) expect((await call(scheme(), opaque(activeAnswer({ token_type: type })))).status, String(type)).toBe(200)
  })

  it('an expired answer (past the leeway): 401 "expired", and a non-object answer: 503', async () => {
    expect(await call(scheme(), opaque(activeAnswer({ exp: seconds() - 60 })))).toMatchObject({ status: 401, body: { detail: 'The access token expired.' } })
    expect(await call(scheme(), opaque([{ active: true }]))).toMatchObject({ status: 503, body: { detail: PROVIDER_UNAVAILABLE_DETAIL } })
  })
})

describe('the introspection cache and cap', () => {
  it('made-up tokens never push an active answer out: inactive answers have their own, smaller cache', async () => {
    const s = scheme({ introspection: { clientId: RS.id, clientSecret: RS.secret, maxEntries: 2, maxInactiveEntries: 3 } })
    const good = opaque(activeAnswer())
    expect((await call(s, good)).status).toBe(200)
    const madeUp = Array.from({ length: 40 }, (_, i) => `made-up-${i}-${Math.random().toString(36).slice(2)}`)
    for (const token of madeUp) expect((await call(s, token)).body).toEqual({ detail: 'The access token is not active.' })
    expect((await call(s, good)).status).toBe(200)
    expect(posted(good)).toBe(1)
    // The inactive cache holds the last three: the last one is not asked again, the first one is.
    expect((await call(s, madeUp.at(-1) as string)).status).toBe(401)
    expect(posted(madeUp.at(-1) as string)).toBe(1)
    expect((await call(s, madeUp[0] as string)).status).toBe(401)
    expect(posted(madeUp[0] as string)).toBe(2)
    // The active cache is bounded too: two more active tokens push the first one out.
    for (const other of [opaque(activeAnswer()), opaque(activeAnswer())]) expect((await call(s, other)).status).toBe(200)
    expect((await call(s, good)).status).toBe(200)
    expect(posted(good)).toBe(2)
  })

  it('maxInactiveEntries: 0 keeps no inactive answer', async () => {
    const s = scheme({ introspection: { clientId: RS.id, clientSecret: RS.secret, maxInactiveEntries: 0 } })
    for (let i = 0; i < 2; i++) expect((await call(s, 'never-issued')).status).toBe(401)
    expect(posted('never-issued')).toBe(2)
  })

  it('over maxInFlight distinct tokens being asked about: 503 with Retry-After at once, no request to the provider; the same token shares its request', async () => {
    const lines: string[] = []
    const s = scheme({ introspection: { clientId: RS.id, clientSecret: RS.secret, maxInFlight: 2 } }, lines)
    let release = (): void => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    provider.introspect = async (token) => {
      await gate
      return provider.answers.get(token) ?? { active: false }
    }
    const before = provider.requestsTo('/introspect').length
    const [a, b, c] = [opaque(activeAnswer()), opaque(activeAnswer()), opaque(activeAnswer())]
    const held = [call(s, a), call(s, b), call(s, a)]
    await provider.waitForRequests('/introspect', before + 2)
    const busy = await call(s, c)
    expect(busy).toEqual({ status: 503, body: { detail: INTROSPECTION_BUSY_DETAIL }, headers: expect.objectContaining({ 'retry-after': '1' }) })
    expect(busy.headers['www-authenticate']).toBeUndefined()
    expect(posted(c)).toBe(0)
    release()
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200, 200])
    expect(posted(a)).toBe(1)
    // Room again: the refused token is asked about now. Being busy is not an outage: nothing logged.
    expect((await call(s, c)).status).toBe(200)
    expect(lines).toEqual([])
  })
})

describe('an https: issuer whose discovery document names plain http: endpoints', () => {
  const ISSUER = 'https://idp.gatehouse.test'

  /** The scheme for the https: issuer, its requests to ISSUER sent to the fake provider (standing in for TLS). */
  const httpsScheme = (lines: string[]): OAuth2Authentication => scheme({ issuer: ISSUER, fetch: provider.fetchAs(ISSUER) }, lines)
  const jwt = (): Promise<string> => provider.sign({ iss: ISSUER, aud: API, sub: 'alice', scope: 'read', iat: seconds(), exp: seconds() + 300 })
  const port = (): string => new URL(provider.origin).port

  it('the control: https: endpoints on the issuer are used, the JWT verified and the opaque token introspected', async () => {
    provider.discovery = { issuer: ISSUER, jwks_uri: `${ISSUER}/jwks`, introspection_endpoint: `${ISSUER}/introspect` }
    const s = httpsScheme([])
    expect((await call(s, await jwt())).status).toBe(200)
    const token = opaque(activeAnswer({ iss: ISSUER }))
    expect((await call(s, token)).status).toBe(200)
    expect(provider.requestsTo('/introspect').at(-1)?.headers.authorization).toBe(BASIC)
  })

  it.each([
    ['jwks_uri on 127.0.0.1', 'jwks_uri', () => ({ jwks_uri: `http://127.0.0.1:${port()}/jwks`, introspection_endpoint: `${ISSUER}/introspect` })],
    ['introspection_endpoint on localhost', 'introspection_endpoint', () => ({ jwks_uri: `${ISSUER}/jwks`, introspection_endpoint: `http://localhost:${port()}/introspect` })],
    ['introspection_endpoint on [::1]', 'introspection_endpoint', () => ({ jwks_uri: `${ISSUER}/jwks`, introspection_endpoint: `http://[::1]:${port()}/introspect` })],
  ])('%s: 503, never fetched, the client credentials never sent', async (_name, field, endpoints) => {
    provider.discovery = { issuer: ISSUER, ...endpoints() }
    const lines: string[] = []
    const s = httpsScheme(lines)
    const before = provider.requests.length
    const token = opaque(activeAnswer({ iss: ISSUER }))
    expect(await call(s, await jwt())).toMatchObject({ status: 503, body: { detail: PROVIDER_UNAVAILABLE_DETAIL } })
    expect(await call(s, token)).toMatchObject({ status: 503, body: { detail: PROVIDER_UNAVAILABLE_DETAIL } })
    const since = provider.requests.slice(before)
    // Only discovery documents were asked for: no key set, no introspection, no credentials.
    expect(since.length).toBeGreaterThan(0)
    expect(since.every((r) => r.path === '/.well-known/openid-configuration' && r.method === 'GET')).toBe(true)
    expect(since.some((r) => r.headers.authorization !== undefined || r.body.includes(RS.secret))).toBe(false)
    expect(lines.join('\n')).toContain(`discovery: ${field} is not an https: URL`)
  })

  it('an introspection endpoint configured by the app (not taken from the document) may be loopback http: (a sidecar)', async () => {
    provider.discovery = { issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` }
    const s = scheme({ issuer: ISSUER, fetch: provider.fetchAs(ISSUER), introspection: { clientId: RS.id, clientSecret: RS.secret, endpoint: `${provider.origin}/introspect` } })
    const token = opaque(activeAnswer({ iss: ISSUER }))
    expect((await call(s, token)).status).toBe(200)
    expect(posted(token)).toBe(1)
  })

  it('an http: loopback issuer may name http: loopback endpoints (a test provider), on another loopback name too', async () => {
    provider.discovery = { issuer: provider.origin, jwks_uri: `http://localhost:${port()}/jwks`, introspection_endpoint: `http://localhost:${port()}/introspect` }
    const s = scheme()
    expect((await call(s, await provider.sign({ iss: provider.origin, aud: API, sub: 'alice', scope: 'read', exp: seconds() + 300 }))).status).toBe(200)
    expect((await call(s, opaque(activeAnswer()))).status).toBe(200)
  })
})
