/**
 * The OAuth 2.0 resource-server routes of reference-api.md over real HTTP on each framework,
 * against a running OpenID provider (oidc-provider): `GATEHOUSE_OAUTH_ISSUER`, `_AUDIENCE` and
 * `_INTROSPECTION` turn on `/api/schemes/oauth2/` (scope `read`) and `/api/schemes/oauth2-write/`
 * (scope `write`); statuses, bodies and `WWW-Authenticate` values as the document says. Beside
 * them, on the same framework, a few routes of the test's own that map tokens to the reference
 * API's users (`usersByClaim`) behind `IsAdminUser`, and one with `requireAtJwtType`: what an
 * attacker holding a correctly signed token with chosen claims gets from them.
 */
import { IsAdminUser, IsAuthenticated, route, type Permission } from 'drf-gatehouse'
import { OAuth2Authentication, usersByClaim } from 'drf-gatehouse/oauth2'
import { SignJWT, importJWK, type JWTPayload } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { referenceConfigFromEnv } from '../../examples/reference-api/context.js'
import { whoami } from '../../examples/reference-api/routes/identity.js'
import { freshSqlite } from '../helpers/databases.js'
import { CLIENT, JWT_API, OPAQUE_API, OTHER_API, RESOURCE_SERVER, startIssuer, type RunningIssuer } from '../helpers/oidc-issuer.js'
import { startReference, testFramework, type RunningReference } from '../helpers/reference-server.js'
import { startRoutes, type RunningRoutes } from '../helpers/routes-server.js'
import { send, type ExchangeResult } from '../oracle/http-exchange.js'

const CHALLENGE = 'Bearer realm="api"'
const INVALID = 'Bearer realm="api", error="invalid_token"'

/**
 * A JWT access token signed with the provider's own key, so valid in every respect but the
 * claims and header the test chose: what a user who can edit their profile at the provider, or
 * a provider bug, hands an API. A claim or header field set to `undefined` is left out.
 */
async function signedByProvider(issuer: RunningIssuer, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const key = issuer.keys[0]!.privateJwk
  const payload = { iss: issuer.issuer, aud: JWT_API, sub: 'someone', client_id: CLIENT.id, scope: 'read', iat: now, exp: now + 300, ...claims } as JWTPayload
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid ?? '', ...header }).sign(await importJWK(key, 'RS256'))
}

describe('OAuth 2.0 resource server routes', () => {
  let issuer: RunningIssuer
  let server: RunningReference
  const get = (authorization?: string, path = '/api/schemes/oauth2/'): Promise<ExchangeResult> =>
    send(server.baseUrl, 'GET', path, authorization === undefined ? {} : { Authorization: authorization })
  const post = (authorization: string): Promise<ExchangeResult> => send(server.baseUrl, 'POST', '/api/schemes/oauth2-write/', { Authorization: authorization })
  const me = (access: string): unknown => ({ username: CLIENT.id, authenticated: true, auth: access })

  beforeAll(async () => {
    issuer = await startIssuer()
    // Configured as the serve command reads it, from the environment.
    const config = referenceConfigFromEnv({
      GATEHOUSE_OAUTH_ISSUER: issuer.issuer,
      GATEHOUSE_OAUTH_AUDIENCE: `${JWT_API},${OPAQUE_API}`,
      GATEHOUSE_OAUTH_INTROSPECTION: `${RESOURCE_SERVER.id}:${RESOURCE_SERVER.secret}`,
    })
    server = await startReference(freshSqlite(), { oauth2: config.oauth2 })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await issuer?.close()
  })

  it('a JWT access token with scope read: 200, the whoami body with the client as username and the raw token as auth', async () => {
    const access = await issuer.token(JWT_API, 'read')
    const ok = await get(`Bearer ${access}`)
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual(me(access))
    const write = await issuer.token(JWT_API, 'read write')
    const posted = await post(`Bearer ${write}`)
    expect(posted.status).toBe(200)
    expect(posted.body).toEqual(me(write))
  })

  it('an opaque token through introspection: 200 on both routes with the scopes it has', async () => {
    const opaque = await issuer.token(OPAQUE_API, 'read write')
    expect((await get(`Bearer ${opaque}`)).body).toEqual(me(opaque))
    expect((await post(`Bearer ${opaque}`)).body).toEqual(me(opaque))
  })

  it('no token: 401 with the bare challenge; a bad, foreign or inactive token: 401 invalid_token', async () => {
    const none = await get()
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ detail: 'Authentication credentials were not provided.' })
    expect(none.headers['www-authenticate']).toBe(CHALLENGE)
    const access = await issuer.token(JWT_API, 'read')
    for (const token of [`${access.slice(0, -6)}AAAAAA`, await issuer.token(OTHER_API, 'read'), 'never-issued-opaque-token']) {
      const refused = await get(`Bearer ${token}`)
      expect(refused.status, token.slice(0, 12)).toBe(401)
      // shared/reference-api.md's value: no error_description unless the scheme is told to add one.
      expect(refused.headers['www-authenticate'], token.slice(0, 12)).toBe('Bearer realm="api", error="invalid_token"')
    }
  })

  it('a valid token without the scope: 403 with RFC 6750\'s insufficient_scope challenge', async () => {
    const readOnly = await issuer.token(JWT_API, 'read')
    const refused = await post(`Bearer ${readOnly}`)
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ detail: 'You do not have permission to perform this action.' })
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="write"')
    const writeOnly = await issuer.token(OPAQUE_API, 'write')
    expect((await get(`Bearer ${writeOnly}`)).headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="read"')
  })

  it('the OpenAPI document describes the scheme as openIdConnect with the route\'s scope', async () => {
    const document = (await get(undefined, '/api/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown }>>; components: { securitySchemes: Record<string, { type?: string }> } }
    expect(document.paths['/api/schemes/oauth2/']?.['get']?.security).toEqual([{ oauth2: ['read'] }])
    expect(document.paths['/api/schemes/oauth2-write/']?.['post']?.security).toEqual([{ oauth2: ['write'] }])
    expect(document.components.securitySchemes['oauth2']?.type).toBe('openIdConnect')
  })

  it('scopes are compared whole: write:drafts, writer or rewrite is not write, reader not read (403 insufficient_scope); write itself is', async () => {
    for (const scope of ['write:drafts', 'writer rewrite', 'read Write', 'drafts:write read']) {
      const refused = await post(`Bearer ${await signedByProvider(issuer, { scope })}`)
      expect(refused.status, scope).toBe(403)
      expect(refused.headers['www-authenticate'], scope).toBe('Bearer realm="api", error="insufficient_scope", scope="write"')
    }
    const reader = await get(`Bearer ${await signedByProvider(issuer, { scope: 'reader write' })}`)
    expect(reader.status).toBe(403)
    expect(reader.headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="read"')
    // The control: the same signing with the whole scope among the near misses passes.
    const whole = await signedByProvider(issuer, { scope: 'write:drafts write' })
    expect(await post(`Bearer ${whole}`)).toMatchObject({ status: 200, body: { username: 'someone', authenticated: true } })
  })

  it('a JWT whose typ header is not a string ({"a":1}, null, 1): 401 invalid_token, not taken for one without typ', async () => {
    for (const typ of [{ a: 1 }, null, 1]) {
      const refused = await get(`Bearer ${await signedByProvider(issuer, {}, { typ })}`)
      expect(refused.status, JSON.stringify(typ)).toBe(401)
      expect(refused.body, JSON.stringify(typ)).toEqual({ detail: 'The token is not an access token.' })
      expect(refused.headers['www-authenticate'], JSON.stringify(typ)).toBe(INVALID)
    }
    // The controls: typed at+jwt, or not typed at all, the same token passes (typ is optional unless requireAtJwtType).
    expect((await get(`Bearer ${await signedByProvider(issuer, {}, { typ: 'at+jwt' })}`)).status).toBe(200)
    expect((await get(`Bearer ${await signedByProvider(issuer, {}, { typ: undefined })}`)).status).toBe(200)
  })

  it('the provider down with nothing cached for the token: 503 with DRF\'s body, not a 500', async () => {
    const opaque = await issuer.token(OPAQUE_API, 'read')
    issuer.mode = '503'
    try {
      const answer = await get(`Bearer ${opaque}`)
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({ detail: 'The authorization server is unavailable, try again later.' })
    } finally {
      issuer.mode = 'up'
    }
  })
})

describe('OAuth 2.0 tokens mapped to local accounts (usersByClaim) behind IsAdminUser', () => {
  let issuer: RunningIssuer
  let server: RunningReference
  let own: RunningRoutes
  const ROOT = 'root@corp.example'
  const STAFF = 'staff@corp.example'
  const PLAIN = 'alice@corp.example'
  const get = (path: string, token: string): Promise<ExchangeResult> => send(own.baseUrl, 'GET', path, { Authorization: `Bearer ${token}` })
  const noAccount = { detail: 'The access token subject has no account here.' }

  beforeAll(async () => {
    issuer = await startIssuer()
    server = await startReference(freshSqlite())
    const { api, users } = server.ref
    await users.create({ username: ROOT, password: null, isStaff: true, isSuperuser: true })
    await users.create({ username: STAFF, password: null, isStaff: true })
    await users.create({ username: PLAIN, password: null })
    const scheme = (options: Partial<ConstructorParameters<typeof OAuth2Authentication>[0]>): OAuth2Authentication => new OAuth2Authentication({ issuer: issuer.issuer, audience: JWT_API, ...options })
    const view = (name: string, s: OAuth2Authentication, permissions: Permission[]) => api.view({ name, handlers: { GET: whoami }, authentication: [s], permissions })
    own = await startRoutes(testFramework(), [
      // The docs' old example: accounts named by email. IsAdminUser, as the attack found it.
      route('/by-email/admin/', view('By Email Admin', scheme({ user: usersByClaim(users, 'email') }), [new IsAdminUser()])),
      route('/by-email/', view('By Email', scheme({ user: usersByClaim(users, 'email') }), [new IsAuthenticated()])),
      route('/by-email/privileged/', view('By Email Privileged', scheme({ user: usersByClaim(users, 'email', { allowPrivileged: true }) }), [new IsAdminUser()])),
      route('/by-sub/', view('By Sub', scheme({ user: usersByClaim(users) }), [new IsAuthenticated()])),
      route('/strict/', view('Strict', scheme({ requireAtJwtType: true }), [new IsAuthenticated()])),
    ])
  }, 60_000)
  afterAll(async () => {
    await own?.close()
    await server?.close()
    await issuer?.close()
  })

  it('the attack: an unverified email naming a local superuser is 401, never 200 as that superuser', async () => {
    const attacker = await signedByProvider(issuer, { sub: 'attacker-123', email: ROOT, email_verified: false })
    for (const path of ['/by-email/admin/', '/by-email/', '/by-email/privileged/']) {
      const answer = await get(path, attacker)
      expect(answer.status, path).toBe(401)
      expect(answer.body, path).toEqual(noAccount)
      expect(answer.headers['www-authenticate'], path).toBe(INVALID)
    }
    // Without email_verified, or with it as the string "true", the same.
    for (const verified of [undefined, 'true']) expect((await get('/by-email/admin/', await signedByProvider(issuer, { email: ROOT, email_verified: verified }))).status, String(verified)).toBe(401)
  })

  it('a verified email reaches a plain account (and IsAdminUser then refuses it: 403), a staff or superuser one only with allowPrivileged', async () => {
    const verified = (email: string): Promise<string> => signedByProvider(issuer, { sub: `sub-of-${email}`, email, email_verified: true })
    expect(await get('/by-email/', await verified(PLAIN))).toMatchObject({ status: 200, body: { username: PLAIN, authenticated: true } })
    expect((await get('/by-email/admin/', await verified(PLAIN))).status).toBe(403)
    for (const email of [ROOT, STAFF]) {
      const refused = await get('/by-email/admin/', await verified(email))
      expect(refused.status, email).toBe(401)
      // The same answer as for no account: a client cannot learn which names are privileged.
      expect(refused.body, email).toEqual(noAccount)
      expect(await get('/by-email/privileged/', await verified(email)), email).toMatchObject({ status: 200, body: { username: email, authenticated: true } })
    }
  })

  it('a token without the claim names no one: not its client_id, not another claim (401)', async () => {
    // Every other name the token carries is an existing account's.
    const noSub = await signedByProvider(issuer, { sub: undefined, client_id: PLAIN, azp: PLAIN, preferred_username: PLAIN, email: PLAIN, email_verified: true })
    expect(await get('/by-sub/', noSub)).toMatchObject({ status: 401, body: noAccount })
    const noEmail = await signedByProvider(issuer, { sub: PLAIN, client_id: PLAIN, preferred_username: PLAIN, email_verified: true })
    expect(await get('/by-email/', noEmail)).toMatchObject({ status: 401, body: noAccount })
    // The control: the account exists and sub names it.
    expect(await get('/by-sub/', await signedByProvider(issuer, { sub: PLAIN }))).toMatchObject({ status: 200, body: { username: PLAIN } })
  })

  it('requireAtJwtType: a JWT with no typ (an ID token whose aud is this API) is 401; at+jwt passes', async () => {
    const idToken = await signedByProvider(issuer, { scope: undefined, client_id: undefined, azp: CLIENT.id, nonce: 'n-0S6_WzA2Mj' }, { typ: undefined })
    expect(await get('/strict/', idToken)).toMatchObject({ status: 401, body: { detail: 'The token is not an access token.' }, headers: { 'www-authenticate': INVALID } })
    expect(await get('/strict/', await signedByProvider(issuer, { sub: 'someone' }))).toMatchObject({ status: 200, body: { username: 'someone' } })
  })
})
