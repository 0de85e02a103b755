/**
 * OAuth2Authentication against a real OpenID provider (oidc-provider, test/helpers/oidc-issuer.ts)
 * over real loopback HTTP: JWT access tokens (RFC 9068) verified against its discovery document
 * and JWKS, opaque ones through its RFC 7662 introspection endpoint, and the answers a view gives
 * (RFC 6750's challenges, 403 insufficient_scope, 503 when the provider is down). Bad tokens are
 * signed here with the provider's own key (or an attacker's), claiming the provider as issuer.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { SignJWT, base64url, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { CLIENT, JWT_API, OPAQUE_API, OTHER_API, RESOURCE_SERVER, startIssuer, type RunningIssuer } from '../../test/helpers/oidc-issuer.js'
import { jsonResponse } from '../core/api-response.js'
import { createApi } from '../core/api.js'
import { ConfigurationError } from '../core/errors.js'
import type { Permission } from '../core/permission.js'
import { route } from '../core/route.js'
import { openApiDocument } from '../openapi/document.js'
import { accessTokenOf } from './access-token.js'
import { OAuth2Authentication, type OAuth2AuthenticationOptions } from './oauth2-authentication.js'
import { TokenHasReadWriteScope, TokenHasScope } from './scope-permissions.js'
import { usersByClaim } from './users-by-claim.js'

let issuer: RunningIssuer
beforeAll(async () => {
  issuer = await startIssuer()
}, 60_000)
afterAll(async () => issuer?.close())
beforeEach(() => {
  issuer.mode = 'up'
  issuer.overrides.clear()
})

const CHALLENGE = 'Bearer realm="api"'
const invalid = (description: string): string => `Bearer realm="api", error="invalid_token", error_description="${description}"`
const UNAVAILABLE = { detail: 'The authorization server is unavailable, try again later.' }

/** A test clock: the real time until `at` is set, then `at` (ms), so no answer depends on how long a step took. */
function clock(): { now: () => number; at: number | null } {
  const c: { now: () => number; at: number | null } = { at: null, now: () => c.at ?? Date.now() }
  return c
}

function scheme(options: Partial<OAuth2AuthenticationOptions> = {}, lines: string[] = []): OAuth2Authentication {
  return new OAuth2Authentication({ issuer: issuer.issuer, audience: [JWT_API, OPAQUE_API], retryAfterMs: 0, timeoutMs: 3000, errorDescription: true, log: (line) => lines.push(line), ...options })
}

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly challenge: string | undefined
}

/** A view guarded by `s` and `permissions`, answering `{user, scopes, format}`; called with an Authorization header. */
function guarded(s: OAuth2Authentication, permissions: readonly Permission[] = [new TokenHasScope('read')]): (authorization?: string, method?: string) => Promise<Answer> {
  const handler = async (ctx: { user: { username: string | null; id: unknown }; auth: unknown }) => {
    const token = accessTokenOf(ctx.auth)
    return jsonResponse(200, { user: ctx.user.username, id: ctx.user.id, scopes: token?.scopes ?? null, format: token?.format ?? null })
  }
  const view = createApi({ logError: () => undefined }).view({ name: 'Notes', handlers: { GET: handler, POST: handler }, authentication: [s], permissions })
  return async (authorization, method = 'GET') => {
    const response = await view.handle(buildRequest({ method, headers: authorization === undefined ? {} : { Authorization: authorization } }))
    return { status: response.status, body: response.body, challenge: response.headers.find(([k]) => k.toLowerCase() === 'www-authenticate')?.[1] }
  }
}

/** A token signed here: with `key` (the provider's own by default), claiming the provider as issuer unless `claims` say otherwise. */
async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}, key: JWK = issuer.keys[0]!.privateJwk): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  // A claim set to undefined is left out of the token (JSON drops it).
  const payload = { iss: issuer.issuer, aud: JWT_API, sub: 'someone', client_id: CLIENT.id, scope: 'read', iat: now, exp: now + 300, ...claims } as JWTPayload
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid ?? '', ...header })
    .sign(await importJWK(key, 'RS256'))
}

const attackerKey = (async (): Promise<JWK> => exportJWK((await generateKeyPair('RS256', { extractable: true })).privateKey))()

describe('JWT access tokens (RFC 9068) from a running OpenID provider', () => {
  it('a client-credentials token typed at+jwt: 200, the client as a stateless principal, the granted scopes', async () => {
    const token = await issuer.token(JWT_API, 'read write')
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt')
    const answer = await guarded(scheme())(`Bearer ${token}`)
    expect(answer).toEqual({ status: 200, body: { user: CLIENT.id, id: CLIENT.id, scopes: ['read', 'write'], format: 'jwt' }, challenge: undefined })
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    expect((await guarded(scheme())(`bearer ${token}`)).status).toBe(200)
  })

  it('ctx.auth holds the verified claims and the raw token; its string form never shows the token', async () => {
    const token = await issuer.token(JWT_API, 'read')
    const found = await scheme().authenticate(buildRequest({ headers: { Authorization: `Bearer ${token}` } }))
    const auth = found?.auth
    expect(auth?.token).toBe(token)
    expect(auth?.claims).toMatchObject({ iss: issuer.issuer, aud: JWT_API, client_id: CLIENT.id, scope: 'read' })
    expect(found?.expiresAt?.getTime()).toBe((decodeJwt(token).exp ?? 0) * 1000)
    expect(String(auth)).not.toContain(token)
    expect(JSON.stringify(auth)).not.toContain(token)
  })

  it('no Bearer header: not attempted (401 with the bare challenge); a malformed one: 401 invalid_token', async () => {
    const call = guarded(scheme())
    for (const header of [undefined, 'Basic YWxpY2U6eA==', 'Token abc']) {
      expect(await call(header), String(header)).toEqual({ status: 401, body: { detail: 'Authentication credentials were not provided.' }, challenge: CHALLENGE })
    }
    const rows: [string, string][] = [
      ['Bearer', 'Invalid Authorization header: expected Bearer and one access token.'],
      ['Bearer a b', 'Invalid Authorization header: expected Bearer and one access token.'],
      ['Bearer t\xe9st', 'The access token holds characters a Bearer token cannot.'],
      [`Bearer ${'a'.repeat(16_385)}`, 'The access token is too long.'],
    ]
    for (const [header, message] of rows) expect(await call(header), header.slice(0, 20)).toEqual({ status: 401, body: { detail: message }, challenge: invalid(message) })
  })

  it('without errorDescription (the default), the 401 challenge says invalid_token and not why; the body still does', async () => {
    const call = guarded(scheme({ errorDescription: false }))
    const message = 'Invalid Authorization header: expected Bearer and one access token.'
    expect(await call('Bearer a b')).toEqual({ status: 401, body: { detail: message }, challenge: 'Bearer realm="api", error="invalid_token"' })
    const byDefault = guarded(new OAuth2Authentication({ issuer: issuer.issuer, audience: JWT_API, log: () => undefined }))
    expect((await byDefault('Bearer a b')).challenge).toBe('Bearer realm="api", error="invalid_token"')
  })

  it('a token without the scope: 403 insufficient_scope naming the scope (RFC 6750 §3.1); read/write by method', async () => {
    const writeOnly = await issuer.token(JWT_API, 'write')
    expect(await guarded(scheme())(`Bearer ${writeOnly}`)).toEqual({
      status: 403,
      body: { detail: 'You do not have permission to perform this action.' },
      challenge: 'Bearer realm="api", error="insufficient_scope", scope="read"',
    })
    const readOnly = await issuer.token(JWT_API, 'read')
    const readWrite = guarded(scheme({ realm: 'notes' }), [new TokenHasReadWriteScope()])
    expect((await readWrite(`Bearer ${readOnly}`, 'GET')).status).toBe(200)
    expect(await readWrite(`Bearer ${readOnly}`, 'POST')).toMatchObject({ status: 403, challenge: 'Bearer realm="notes", error="insufficient_scope", scope="write"' })
    expect((await readWrite(`Bearer ${writeOnly}`, 'POST')).status).toBe(200)
    // Two scopes required: both named.
    expect((await guarded(scheme(), [new TokenHasScope('read', 'write')])(`Bearer ${readOnly}`)).challenge).toBe('Bearer realm="api", error="insufficient_scope", scope="read write"')
  })

  it('expiry with leeway, on the scheme\'s clock: within the leeway 200, past it 401 "expired"', async () => {
    const token = await issuer.token(JWT_API, 'read')
    const exp = (decodeJwt(token).exp ?? 0) * 1000
    const c = clock()
    const call = guarded(scheme({ now: c.now, leeway: 5 }))
    c.at = exp + 3_000
    expect((await call(`Bearer ${token}`)).status).toBe(200)
    c.at = exp + 6_000
    const message = 'The access token expired.'
    expect(await call(`Bearer ${token}`)).toEqual({ status: 401, body: { detail: message }, challenge: invalid(message) })
  })

  it('refuses tokens for another audience, from another issuer, not yet valid, issued in the future or without exp', async () => {
    const call = guarded(scheme())
    const now = Math.floor(Date.now() / 1000)
    const rows: [string, string][] = [
      [await issuer.token(OTHER_API, 'read'), 'The access token is not meant for this API.'],
      [await signed({ iss: 'https://evil.example/' }), 'The access token is from another issuer.'],
      [await signed({ nbf: now + 120 }), 'The access token is not valid yet.'],
      [await signed({ iat: now + 120 }), 'The access token was issued in the future.'],
      [await signed({ exp: undefined }), 'The access token is invalid.'],
      [await signed({ sub: undefined, client_id: undefined }), 'The access token names no subject or client.'],
    ]
    for (const [token, message] of rows) expect(await call(`Bearer ${token}`), message).toEqual({ status: 401, body: { detail: message }, challenge: invalid(message) })
    // The control: the same signing path with good claims passes.
    expect((await call(`Bearer ${await signed({})}`)).status).toBe(200)
  })

  it('refuses a bad signature, alg none, HS256 keyed with the public key, and tokens typed as something else', async () => {
    const call = guarded(scheme())
    const good = await issuer.token(JWT_API, 'read')
    const [h, p, s] = good.split('.') as [string, string, string]
    const flipped = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`
    const header = (value: object): string => base64url.encode(JSON.stringify(value))
    const kid = issuer.keys[0]!.kid
    const none = `${header({ alg: 'none', typ: 'at+jwt', kid })}.${p}.`
    // The classic confusion: the public key's bytes as an HMAC secret.
    const publicJwk = JSON.stringify({ kty: 'RSA', n: issuer.keys[0]!.privateJwk.n, e: issuer.keys[0]!.privateJwk.e })
    const hs256 = await new SignJWT(decodeJwt(good)).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid }).sign(new TextEncoder().encode(publicJwk))
    const rows: [string, string][] = [
      [flipped, 'The access token signature is invalid.'],
      [none, 'The access token signing algorithm is not accepted.'],
      [hs256, 'The access token signing algorithm is not accepted.'],
      [await signed({}, { typ: 'dpop+jwt' }), 'The token is not an access token.'],
    ]
    for (const [token, message] of rows) expect(await call(`Bearer ${token}`), message).toEqual({ status: 401, body: { detail: message }, challenge: invalid(message) })
    // requireAtJwtType: a `JWT`-typed token is refused, the provider's at+jwt one passes.
    const strict = guarded(scheme({ requireAtJwtType: true }))
    expect((await strict(`Bearer ${await signed({}, { typ: 'JWT' })}`)).body).toEqual({ detail: 'The token is not an access token.' })
    expect((await strict(`Bearer ${good}`)).status).toBe(200)
    expect((await call(`Bearer ${await signed({}, { typ: 'JWT' })}`)).status).toBe(200)
  })

  it('a typ that is not a string ({"a":1}, null, a number, an array, true) is refused, not read as no typ; no typ at all passes unless requireAtJwtType', async () => {
    const notAType = 'The token is not an access token.'
    for (const strictness of [false, true]) {
      const call = guarded(scheme({ requireAtJwtType: strictness }))
      for (const typ of [{ a: 1 }, null, 1, ['at+jwt'], true, { typ: 'at+jwt' }]) {
        const token = await signed({}, { typ })
        expect(decodeProtectedHeader(token).typ, JSON.stringify(typ)).toEqual(typ)
        expect(await call(`Bearer ${token}`), `${JSON.stringify(typ)} strict=${strictness}`).toEqual({ status: 401, body: { detail: notAType }, challenge: invalid(notAType) })
      }
    }
    // The control: the same token typed `at+jwt`, or not typed, passes the default scheme.
    expect((await guarded(scheme())(`Bearer ${await signed({}, { typ: 'at+jwt' })}`)).status).toBe(200)
    expect((await guarded(scheme())(`Bearer ${await signed({}, { typ: undefined })}`)).status).toBe(200)
  })

  it('requireAtJwtType refuses a JWT with no typ: an ID token whose aud is this API is not an access token', async () => {
    const strict = guarded(scheme({ requireAtJwtType: true }))
    // An ID token's shape: sub, aud the client's (here this API's), no scope, no typ header.
    const idToken = await signed({ scope: undefined, client_id: undefined, azp: CLIENT.id, nonce: 'n-0S6_WzA2Mj', auth_time: Math.floor(Date.now() / 1000) }, { typ: undefined })
    expect('typ' in decodeProtectedHeader(idToken)).toBe(false)
    const answer = await strict(`Bearer ${idToken}`)
    expect(answer).toEqual({ status: 401, body: { detail: 'The token is not an access token.' }, challenge: invalid('The token is not an access token.') })
    // The control: everything else about it is valid, so the default scheme (no scope needed) takes it.
    expect((await guarded(scheme(), [])(`Bearer ${idToken}`)).status).toBe(200)
    // And each casing RFC 9068 allows of at+jwt passes the strict scheme.
    for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt']) expect((await strict(`Bearer ${await signed({}, { typ })}`)).status, typ).toBe(200)
  })

  it('unknown kid: the JWKS is fetched again once, then refused from the cache until the cooldown ends, whatever the kids', async () => {
    const c = clock()
    const s = scheme({ now: c.now, jwksCooldownSeconds: 30 })
    const call = guarded(s)
    const jwksHits = (): number => issuer.hits.get('/jwks') ?? 0
    const before = jwksHits()
    expect((await call(`Bearer ${await issuer.token(JWT_API, 'read')}`)).status).toBe(200)
    expect(s.jwksFetches).toBe(1)
    const start = Date.now()
    c.at = start + 31_000
    const attacker = await attackerKey
    const forged = (kid: string): Promise<string> => signed({}, {}, { ...attacker, kid })
    const message = 'The access token signing key is unknown.'
    expect(await call(`Bearer ${await forged('kid-0')}`)).toEqual({ status: 401, body: { detail: message }, challenge: invalid(message) })
    expect(s.jwksFetches).toBe(2)
    // A flood of made-up kids, one after another and all at once: no more fetches in the cooldown.
    for (let i = 1; i <= 20; i++) expect((await call(`Bearer ${await forged(`kid-${i}`)}`)).status).toBe(401)
    const tokens = await Promise.all(Array.from({ length: 30 }, (_, i) => forged(`burst-${i}`)))
    const burst = await Promise.all(tokens.map((t) => call(`Bearer ${t}`)))
    expect(burst.every((a) => a.status === 401)).toBe(true)
    expect(s.jwksFetches).toBe(2)
    expect(jwksHits() - before).toBe(2)
    // Past the cooldown, one more.
    c.at = start + 62_000
    expect((await call(`Bearer ${await forged('kid-late')}`)).status).toBe(401)
    expect(s.jwksFetches).toBe(3)
    expect(jwksHits() - before).toBe(3)
  })

  it('a burst of unknown kids on a cold scheme fetches the JWKS at most twice', async () => {
    const s = scheme()
    const attacker = await attackerKey
    const tokens = await Promise.all(Array.from({ length: 40 }, (_, i) => signed({}, {}, { ...attacker, kid: `cold-${i}` })))
    const answers = await Promise.all(tokens.map((t) => guarded(s)(`Bearer ${t}`)))
    expect(answers.every((a) => a.status === 401)).toBe(true)
    expect(s.jwksFetches).toBeLessThanOrEqual(2)
  })

  it('key rotation: a token signed with the new key is accepted after one JWKS fetch; the old key\'s tokens still are', async () => {
    const c = clock()
    const s = scheme({ now: c.now })
    const call = guarded(s)
    const old = await issuer.token(JWT_API, 'read')
    expect((await call(`Bearer ${old}`)).status).toBe(200)
    const key = await issuer.rotate()
    const rotated = await issuer.token(JWT_API, 'read')
    expect(decodeProtectedHeader(rotated).kid).toBe(key.kid)
    c.at = Date.now() + 31_000
    expect((await call(`Bearer ${rotated}`)).status).toBe(200)
    expect(s.jwksFetches).toBe(2)
    expect((await call(`Bearer ${old}`)).status).toBe(200)
    expect(s.jwksFetches).toBe(2)
  })

  it('reads at most maxKeys keys of a JWKS', async () => {
    const jwks = (await (await fetch(`${issuer.issuer}/jwks`)).json()) as { keys: JWK[] }
    const fillers = await Promise.all(Array.from({ length: 3 }, async (_, i) => ({ ...(await exportJWK((await generateKeyPair('RS256')).publicKey)), kid: `filler-${i}` })))
    issuer.overrides.set('/jwks', (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [...fillers, ...jwks.keys] })))
    const token = `Bearer ${await issuer.token(JWT_API, 'read')}`
    expect((await guarded(scheme({ maxKeys: 3 }))(token)).body).toEqual({ detail: 'The access token signing key is unknown.' })
    expect((await guarded(scheme({ maxKeys: 3 + jwks.keys.length }))(token)).status).toBe(200)
  })
})

describe('the provider down', () => {
  it.each<['503' | 'refuse' | 'hang']>([['503'], ['refuse'], ['hang']])('provider %s and nothing cached: 503 with DRF\'s body, logged once, never the secret; 200 once it answers', async (mode) => {
    const lines: string[] = []
    const s = scheme({ timeoutMs: 300, introspection: { clientId: RESOURCE_SERVER.id, clientSecret: RESOURCE_SERVER.secret } }, lines)
    const call = guarded(s)
    const token = await issuer.token(JWT_API, 'read')
    const opaque = await issuer.token(OPAQUE_API, 'read')
    issuer.mode = mode
    for (const t of [token, opaque, token]) expect(await call(`Bearer ${t}`)).toEqual({ status: 503, body: UNAVAILABLE, challenge: undefined })
    expect(lines.length).toBe(1)
    expect(lines[0]).toContain(`OAuth 2.0 provider ${issuer.issuer} unavailable`)
    issuer.mode = 'up'
    expect((await call(`Bearer ${token}`)).status).toBe(200)
    expect((await call(`Bearer ${opaque}`)).status).toBe(200)
    expect(lines.length).toBe(2)
    expect(lines[1]).toContain('answers again')
    for (const line of lines) {
      expect(line).not.toContain(RESOURCE_SERVER.secret)
      expect(line).not.toContain(token)
    }
  })

  it('keys already fetched keep working while the provider is down, even past their max age', async () => {
    const c = clock()
    const s = scheme({ now: c.now, jwksMaxAgeSeconds: 60 })
    const token = await issuer.token(JWT_API, 'read')
    expect((await guarded(s)(`Bearer ${token}`)).status).toBe(200)
    issuer.mode = '503'
    expect((await guarded(s)(`Bearer ${token}`)).status).toBe(200)
    c.at = Date.now() + 61_000
    expect((await guarded(s)(`Bearer ${token}`)).status).toBe(200)
    expect(s.jwksFetches).toBe(2)
  })

  it('a discovery document naming another issuer, an oversized JWKS, or a non-JSON answer: 503', async () => {
    const discovery = (await (await fetch(`${issuer.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>
    const token = `Bearer ${await issuer.token(JWT_API, 'read')}`
    issuer.overrides.set('/.well-known/openid-configuration', (_req, res) => res.writeHead(200).end(JSON.stringify({ ...discovery, issuer: 'https://evil.example/' })))
    expect((await guarded(scheme())(token)).body).toEqual(UNAVAILABLE)
    issuer.overrides.clear()
    issuer.overrides.set('/jwks', (_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [], padding: 'x'.repeat(300_000) })))
    expect((await guarded(scheme())(token)).body).toEqual(UNAVAILABLE)
    expect((await guarded(scheme({ maxResponseBytes: 400_000 }))(token)).body).toEqual({ detail: 'The access token signing key is unknown.' })
    issuer.overrides.set('/jwks', (_req, res) => res.writeHead(200).end('<html>'))
    expect((await guarded(scheme())(token)).body).toEqual(UNAVAILABLE)
  })

  it('finds the metadata at RFC 8414\'s place when OpenID Connect\'s is missing', async () => {
    const discovery = await (await fetch(`${issuer.issuer}/.well-known/openid-configuration`)).text()
    issuer.overrides.set('/.well-known/openid-configuration', (_req, res) => res.writeHead(404).end())
    issuer.overrides.set('/.well-known/oauth-authorization-server', (_req, res) => res.writeHead(200).end(discovery))
    expect((await guarded(scheme())(`Bearer ${await issuer.token(JWT_API, 'read')}`)).status).toBe(200)
    expect(issuer.hits.get('/.well-known/oauth-authorization-server')).toBeGreaterThan(0)
  })
})

describe('opaque tokens through RFC 7662 introspection', () => {
  const introspection = { clientId: RESOURCE_SERVER.id, clientSecret: RESOURCE_SERVER.secret }

  it('an active token: 200 with its scopes, the client as principal (no sub); answers cached', async () => {
    const s = scheme({ introspection })
    const opaque = await issuer.token(OPAQUE_API, 'read')
    expect(opaque.split('.').length).toBe(1)
    for (let i = 0; i < 3; i++) expect(await guarded(s)(`Bearer ${opaque}`)).toMatchObject({ status: 200, body: { user: CLIENT.id, scopes: ['read'], format: 'opaque' } })
    expect(s.introspections).toBe(1)
    expect((await guarded(s, [new TokenHasScope('write')])(`Bearer ${opaque}`)).challenge).toBe('Bearer realm="api", error="insufficient_scope", scope="write"')
  })

  it('an unknown or revoked token: 401 "not active"; a revoked one within the cache time still passes (the documented bound)', async () => {
    const message = 'The access token is not active.'
    const uncached = scheme({ introspection: { ...introspection, cacheSeconds: 0 } })
    const cached = scheme({ introspection })
    expect(await guarded(uncached)('Bearer not-a-token-the-provider-issued')).toEqual({ status: 401, body: { detail: message }, challenge: invalid(message) })
    const opaque = await issuer.token(OPAQUE_API, 'read')
    expect((await guarded(uncached)(`Bearer ${opaque}`)).status).toBe(200)
    expect((await guarded(cached)(`Bearer ${opaque}`)).status).toBe(200)
    await issuer.revoke(opaque)
    expect((await guarded(uncached)(`Bearer ${opaque}`)).body).toEqual({ detail: message })
    expect((await guarded(cached)(`Bearer ${opaque}`)).status).toBe(200)
  })

  it('a cached answer never outlives the token: past exp it is asked again and refused', async () => {
    const c = clock()
    const s = scheme({ now: c.now, introspection: { ...introspection, cacheSeconds: 3600 } })
    const opaque = await issuer.token(OPAQUE_API, 'read')
    expect((await guarded(s)(`Bearer ${opaque}`)).status).toBe(200)
    c.at = Date.now() + 310_000
    expect((await guarded(s)(`Bearer ${opaque}`)).body).toEqual({ detail: 'The access token expired.' })
    expect(s.introspections).toBe(2)
  })

  it('refuses an opaque token for another audience, and any opaque token when introspection is off', async () => {
    const opaque = await issuer.token(OPAQUE_API, 'read')
    expect((await guarded(scheme({ audience: JWT_API, introspection }))(`Bearer ${opaque}`)).body).toEqual({ detail: 'The access token is not meant for this API.' })
    expect((await guarded(scheme())(`Bearer ${opaque}`)).body).toEqual({ detail: 'The access token is not a JWT.' })
  })

  it('introspection refused (wrong client secret): 503, and the log names no secret', async () => {
    const lines: string[] = []
    const s = scheme({ introspection: { ...introspection, clientSecret: 'wrong-secret-value' } }, lines)
    expect((await guarded(s)(`Bearer ${await issuer.token(OPAQUE_API, 'read')}`)).body).toEqual(UNAVAILABLE)
    expect(lines.join('\n')).toContain('introspection: answered 401')
    expect(lines.join('\n')).not.toContain('wrong-secret-value')
  })
})

describe('the user of a token', () => {
  it('usersByClaim maps the claim to a stored user; unknown: 401; inactive: 401', async () => {
    const token = `Bearer ${await issuer.token(JWT_API, 'read')}`
    const users = new FakeUserStore([{ id: 9, username: CLIENT.id, password: null, isActive: true, isStaff: false }])
    expect(await guarded(scheme({ user: usersByClaim(users) }))(token)).toMatchObject({ status: 200, body: { user: CLIENT.id, id: 9 } })
    expect((await guarded(scheme({ user: usersByClaim(new FakeUserStore()) }))(token)).body).toEqual({ detail: 'The access token subject has no account here.' })
    const inactive = new FakeUserStore([{ id: 9, username: CLIENT.id, password: null, isActive: false, isStaff: false }])
    expect((await guarded(scheme({ user: usersByClaim(inactive) }))(token)).body).toEqual({ detail: 'The user of the access token is inactive.' })
  })
})

describe('configuration and OpenAPI', () => {
  it('refuses none/HS* algorithms, a plain-http issuer off loopback, a realm or scope that needs escaping', () => {
    const base = { issuer: 'https://id.example/', audience: 'api' }
    expect(() => new OAuth2Authentication({ ...base, algorithms: ['HS256' as never] })).toThrow(ConfigurationError)
    expect(() => new OAuth2Authentication({ ...base, algorithms: ['none' as never] })).toThrow(ConfigurationError)
    expect(() => new OAuth2Authentication({ ...base, issuer: 'http://id.example/' })).toThrow(ConfigurationError)
    expect(() => new OAuth2Authentication({ ...base, issuer: 'https://user:pw@id.example/' })).toThrow(ConfigurationError)
    expect(() => new OAuth2Authentication({ ...base, audience: [] })).toThrow(ConfigurationError)
    expect(() => new OAuth2Authentication({ ...base, realm: 'a"b' })).toThrow(ConfigurationError)
    expect(() => new TokenHasScope('read write')).toThrow(ConfigurationError)
    expect(() => new OAuth2Authentication(base)).not.toThrow()
  })

  it('documents itself as openIdConnect (or oauth2 flows with a token URL), routes listing the scopes they need', async () => {
    const s = new OAuth2Authentication({ issuer: 'https://id.example/', audience: 'api', openApi: { scopes: { read: 'Read notes', write: 'Write notes' } } })
    const flows = new OAuth2Authentication({ issuer: 'https://id.example/', audience: 'api', openApi: { tokenUrl: 'https://id.example/oauth/token', scopes: { read: 'Read notes' } } })
    const api = createApi({ authentication: [s] })
    const get = async (): Promise<ReturnType<typeof jsonResponse>> => jsonResponse(200, {})
    const document = openApiDocument(
      [
        route('/notes/', api.view({ name: 'Notes', handlers: { GET: get, POST: get }, permissions: [new TokenHasReadWriteScope()] })),
        route('/flows/', api.view({ name: 'Flows', handlers: { GET: get }, authentication: [flows], permissions: [new TokenHasScope('read')] })),
      ],
      { info: { title: 'T', version: '1' } },
    ) as unknown as { paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>>; components: { securitySchemes: Record<string, unknown> } }
    expect(document.paths['/notes/']?.['get']?.security).toEqual([{ oauth2: ['read'] }])
    expect(document.paths['/notes/']?.['post']?.security).toEqual([{ oauth2: ['write'] }])
    expect(Object.keys(document.paths['/notes/']?.['get']?.responses ?? {})).toEqual(expect.arrayContaining(['401', '403', '503']))
    expect(document.components.securitySchemes['oauth2']).toEqual({
      type: 'openIdConnect',
      openIdConnectUrl: 'https://id.example/.well-known/openid-configuration',
      description: 'Access tokens from https://id.example/. Scopes: `read`: Read notes; `write`: Write notes.',
    })
    expect(document.paths['/flows/']?.['get']?.security).toEqual([{ oauth2_2: ['read'] }])
    expect(document.components.securitySchemes['oauth2_2']).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://id.example/oauth/token', scopes: { read: 'Read notes' } } } })
    await expect(new Validator().validate(document as never)).resolves.toMatchObject({ valid: true })
  })
})
