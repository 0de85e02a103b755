/**
 * The JWT routes of reference-api.md over real HTTP on each framework, SQLite and (with
 * DATABASE_URL) PostgreSQL: simplejwt 5.2.2's statuses, bodies and `WWW-Authenticate:
 * Bearer realm="api"`, and a pair minted by the real simplejwt accepted on the wire.
 */
import { generateKeyPairSync } from 'node:crypto'
import { Validator } from '@seriousme/openapi-schema-validator'
import { CompactSign, decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accessPayloadFrom, JwtCodec, resolveJwtSettings } from 'drf-gatehouse/jwt'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { send, type ExchangeResult } from '../oracle/http-exchange.js'
import { simplejwt } from '../oracle/simplejwt/simplejwt.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const KEY = 'django-insecure-reference-jwt-key-0123456789abcdefgh'
const CHALLENGE = 'Bearer realm="api"'
const NO_ACCOUNT = { detail: 'No active account found with the given credentials' }
const INVALID = { detail: 'Token is invalid or expired', code: 'token_not_valid' }
const notValid = (message: string): unknown => ({
  detail: 'Given token not valid for any token type',
  code: 'token_not_valid',
  messages: [{ token_class: 'AccessToken', token_type: 'access', message }],
})
/** The who-am-I body of a JWT request: `auth` is the raw access token (reference-api.md, simplejwt's `str(request.auth)`). */
const me = (username: string, access: string): unknown => ({ username, authenticated: true, auth: access })

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`JWT routes on ${backend.name}`, () => {
    let server: RunningReference
    let codec: JwtCodec
    const post = (path: string, body: unknown): Promise<ExchangeResult> =>
      send(server.baseUrl, 'POST', path, { 'Content-Type': 'application/json' }, JSON.stringify(body))
    const whoami = (authorization?: string): Promise<ExchangeResult> =>
      send(server.baseUrl, 'GET', '/api/schemes/jwt/', authorization === undefined ? {} : { Authorization: authorization })
    const pair = async (username: string, password: string): Promise<{ refresh: string; access: string }> => {
      const response = await post('/api/jwt/', { username, password })
      expect(response.status).toBe(200)
      return response.body as { refresh: string; access: string }
    }
    /** A validly signed access token for user `id` (a deleted or inactive one, say). */
    const accessFor = async (id: number): Promise<string> => {
      const now = codec.currentTime()
      return codec.encode(accessPayloadFrom(codec, { user_id: id, iat: Math.floor(now) }, now))
    }

    beforeAll(async () => {
      server = await startReference(await backend.create(), { jwt: { signingKey: KEY }, loginFailures: '3/min' })
      if (server.ref.jwt === null) throw new Error('JWT routes are off')
      codec = server.ref.jwt
    }, 60_000)
    afterAll(async () => server?.close())

    it('obtain: a pair for good credentials; 401 no_active_account (no code) for bad or inactive; 400 for missing fields', async () => {
      const { refresh, access } = await pair('alice', 'alice-pass-1')
      expect((await codec.decode(access, 'access'))['user_id']).toBe(1)
      expect((await codec.decode(refresh, 'refresh'))['user_id']).toBe(1)
      for (const [username, password] of [['alice', 'nope'], ['carol', 'carol-pass-3'], ['nobody', 'x']]) {
        const response = await post('/api/jwt/', { username, password })
        expect(response.status).toBe(401)
        expect(response.body).toEqual(NO_ACCOUNT)
        expect(response.headers['www-authenticate']).toBe(CHALLENGE)
      }
      const missing = await post('/api/jwt/', {})
      expect(missing.status).toBe(400)
      expect(missing.body).toEqual({ username: ['This field is required.'], password: ['This field is required.'] })
    })

    it('failed logins: JWT obtain and DRF token obtain share one budget per (username, address); past it even the right password is 429', async () => {
      await server.ref.users.create({ username: 'guessed', password: 'guessed-pass-1' })
      for (let i = 0; i < 2; i++) expect((await post('/api/jwt/', { username: 'guessed', password: `wrong-${i}` })).status).toBe(401)
      expect((await post('/api/auth/token/', { username: 'guessed', password: 'wrong-2' })).status).toBe(400)
      for (const path of ['/api/jwt/', '/api/auth/token/']) {
        const refused = await post(path, { username: 'guessed', password: 'guessed-pass-1' })
        expect(refused.status, path).toBe(429)
        const wait = Number(refused.headers['retry-after'])
        expect(wait >= 1 && wait <= 60, path).toBe(true)
        expect(refused.body, path).toEqual({ detail: `Request was throttled. Expected available in ${wait} ${wait === 1 ? 'second' : 'seconds'}.` })
      }
      // Another username from the same address is not locked out.
      expect((await post('/api/jwt/', { username: 'bob', password: 'bob-pass-2' })).status).toBe(200)
    })

    it('JWTAuthentication: the access token authenticates; each bad header or token gets simplejwt\'s body and challenge', async () => {
      const { refresh, access } = await pair('bob', 'bob-pass-2')
      const ok = await whoami(`Bearer ${access}`)
      expect(ok.status).toBe(200)
      expect(ok.body).toEqual(me('bob', access))
      const rows: [string | undefined, unknown][] = [
        [undefined, { detail: 'Authentication credentials were not provided.' }],
        [`bearer ${access}`, { detail: 'Authentication credentials were not provided.' }],
        [`Token ${access}`, { detail: 'Authentication credentials were not provided.' }],
        ['Bearer', { detail: 'Authorization header must contain two space-delimited values', code: 'bad_authorization_header' }],
        [`Bearer ${access} x`, { detail: 'Authorization header must contain two space-delimited values', code: 'bad_authorization_header' }],
        [`Bearer ${refresh}`, notValid('Token has wrong type')],
        [`Bearer ${access.slice(0, -3)}abc`, notValid('Token is invalid or expired')],
        ['Bearer \xff\xfe', notValid('Token is invalid or expired')],
        [`Bearer ${await accessFor(999)}`, { detail: 'User not found', code: 'user_not_found' }],
        [`Bearer ${await accessFor(3)}`, { detail: 'User is inactive', code: 'user_inactive' }],
      ]
      for (const [header, body] of rows) {
        const response = await whoami(header)
        expect(response.status, String(header)).toBe(401)
        expect(response.body, String(header)).toEqual(body)
        expect(response.headers['www-authenticate'], String(header)).toBe(CHALLENGE)
      }
    })

    it('refresh: a new access token keeping the refresh token\'s iat; wrong type and garbage are 401 token_not_valid', async () => {
      const { refresh, access } = await pair('alice', 'alice-pass-1')
      const refreshed = await post('/api/jwt/refresh/', { refresh })
      expect(refreshed.status).toBe(200)
      const body = refreshed.body as { access: string }
      expect(Object.keys(body)).toEqual(['access'])
      expect((await codec.decode(body.access, 'access'))['iat']).toBe((await codec.decode(refresh, 'refresh'))['iat'])
      expect((await whoami(`Bearer ${body.access}`)).body).toEqual(me('alice', body.access))
      const wrongType = await post('/api/jwt/refresh/', { refresh: access })
      expect(wrongType.status).toBe(401)
      expect(wrongType.body).toEqual({ detail: 'Token has wrong type', code: 'token_not_valid' })
      expect(wrongType.headers['www-authenticate']).toBe(CHALLENGE)
      const garbage = await post('/api/jwt/refresh/', { refresh: 'nope' })
      expect(garbage.status).toBe(401)
      expect(garbage.body).toEqual(INVALID)
      const missing = await post('/api/jwt/refresh/', {})
      expect(missing.status).toBe(400)
      expect(missing.body).toEqual({ refresh: ['This field is required.'] })
    })

    it('refresh is refused once the user is deactivated (an improvement on 5.2.2)', async () => {
      const created = await server.ref.users.create({ username: 'leaver', password: 'leaver-pass-9' })
      const { refresh } = await pair('leaver', 'leaver-pass-9')
      expect((await post('/api/jwt/refresh/', { refresh })).status).toBe(200)
      await server.ref.users.setActive?.(created.id, false)
      const refused = await post('/api/jwt/refresh/', { refresh })
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual({ ...NO_ACCOUNT, code: 'no_active_account' })
      expect(refused.headers['www-authenticate']).toBe(CHALLENGE)
    })

    it('verify: 200 {} for any valid token, 401 token_not_valid otherwise', async () => {
      const { refresh, access } = await pair('alice', 'alice-pass-1')
      for (const token of [refresh, access]) {
        const response = await post('/api/jwt/verify/', { token })
        expect(response.status).toBe(200)
        expect(response.body).toEqual({})
      }
      const bad = await post('/api/jwt/verify/', { token: `${access}x` })
      expect(bad.status).toBe(401)
      expect(bad.body).toEqual(INVALID)
      expect(bad.headers['www-authenticate']).toBe(CHALLENGE)
    })

    it('blacklist (logout): 200 {} once, then the refresh token is refused everywhere; verify ignores it as 5.2.2 does', async () => {
      const { refresh, access } = await pair('alice', 'alice-pass-1')
      const jti = String((await codec.decode(refresh, 'refresh'))['jti'])
      // obtain recorded the refresh token as outstanding
      const row = await server.ref.db.selectFrom('gatehouse_jwt_tokens').selectAll().where('jti', '=', jti).executeTakeFirst()
      expect(row).toMatchObject({ jti, user_id: '1', blacklisted_at: null })
      const first = await post('/api/jwt/blacklist/', { refresh })
      expect(first.status).toBe(200)
      expect(first.body).toEqual({})
      const blacklisted = { detail: 'Token is blacklisted', code: 'token_not_valid' }
      for (const path of ['/api/jwt/blacklist/', '/api/jwt/refresh/']) {
        const again = await post(path, { refresh })
        expect(again.status, path).toBe(401)
        expect(again.body, path).toEqual(blacklisted)
        expect(again.headers['www-authenticate'], path).toBe(CHALLENGE)
      }
      expect((await post('/api/jwt/verify/', { token: refresh })).status).toBe(200)
      const wrongType = await post('/api/jwt/blacklist/', { refresh: access })
      expect(wrongType.body).toEqual({ detail: 'Token has wrong type', code: 'token_not_valid' })
      expect((await post('/api/jwt/blacklist/', {})).body).toEqual({ refresh: ['This field is required.'] })
      // flush-expired: rows past their exp go, blacklisted or not
      const blacklist = server.ref.jwtBlacklist
      if (blacklist === undefined) throw new Error('the JWT blacklist is off')
      await blacklist.blacklist({ jti: 'old-one', userId: 1, expiresAt: new Date(Date.now() - 1000) })
      expect(await blacklist.isBlacklisted('old-one')).toBe(true)
      expect(await blacklist.flushExpired(new Date())).toBe(1)
      expect(await blacklist.isBlacklisted('old-one')).toBe(false)
      expect(await blacklist.isBlacklisted(jti)).toBe(true)
    })

    it('OpenAPI: /api/schemes/jwt/ requires jwtAuth (http bearer, JWT, drf-spectacular\'s name); the token views take no credentials; nothing undescribed', async () => {
      const response = await send(server.baseUrl, 'GET', '/api/openapi.json', {})
      expect(response.status).toBe(200)
      const doc = response.body as { paths: Record<string, Record<string, Record<string, unknown>>>; components: { securitySchemes: Record<string, unknown> } }
      const result = await new Validator().validate(response.body as Parameters<Validator['validate']>[0])
      expect(result.errors).toBeUndefined()
      expect(doc.components.securitySchemes['jwtAuth']).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      expect(doc.paths['/api/schemes/jwt/']?.['get']?.['security']).toEqual([{ jwtAuth: [] }])
      for (const path of ['/api/jwt/', '/api/jwt/refresh/', '/api/jwt/verify/', '/api/jwt/blacklist/']) {
        const op = doc.paths[path]?.['post']
        expect(op?.['security'], path).toEqual([{}])
        expect(op?.['responses'], path).toHaveProperty('401')
      }
      expect(JSON.stringify(doc)).not.toContain('x-undescribed-authentication')
    })

    it('a pair minted by the real simplejwt 5.2.2 with the same key works on the wire', async () => {
      const [minted] = await simplejwt(KEY, [{ op: 'mint', user_id: 2 }])
      expect((await whoami(`Bearer ${minted?.access ?? ''}`)).body).toEqual(me('bob', minted?.access ?? ''))
      const refreshed = await post('/api/jwt/refresh/', { refresh: minted?.refresh })
      expect(refreshed.status).toBe(200)
      const [check] = await simplejwt(KEY, [{ op: 'check', token: (refreshed.body as { access: string }).access, class: 'access' }])
      expect(check?.payload?.['user_id']).toBe(2)
    }, 60_000)
  })
}

// Rotation with blacklist-after-rotation: a refresh token is single-use even when sent
// several times at once (the old token is claimed in one atomic write before anything is issued).
for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`JWT rotation races on ${backend.name}`, () => {
    let server: RunningReference
    const post = (path: string, body: unknown): Promise<ExchangeResult> =>
      send(server.baseUrl, 'POST', path, { 'Content-Type': 'application/json' }, JSON.stringify(body))
    const blacklisted = { detail: 'Token is blacklisted', code: 'token_not_valid' }

    beforeAll(async () => {
      server = await startReference(await backend.create(), { jwt: { signingKey: KEY, rotateRefreshTokens: true, blacklistAfterRotation: true } })
    }, 60_000)
    afterAll(async () => server?.close())

    it('three concurrent refreshes of one refresh token: exactly one 200 with a new pair, the others 401 "Token is blacklisted" (each of 5 rounds)', async () => {
      for (let round = 0; round < 5; round++) {
        const obtained = await post('/api/jwt/', { username: 'alice', password: 'alice-pass-1' })
        const { refresh } = obtained.body as { refresh: string }
        const answers = await Promise.all([0, 1, 2].map(() => post('/api/jwt/refresh/', { refresh })))
        const ok = answers.filter((a) => a.status === 200)
        expect(ok.length, `round ${round}: ${answers.map((a) => a.status).join(', ')}`).toBe(1)
        expect(Object.keys(ok[0]?.body as object)).toEqual(['access', 'refresh'])
        for (const refused of answers.filter((a) => a.status !== 200)) {
          expect(refused.status).toBe(401)
          expect(refused.body).toEqual(blacklisted)
          expect(refused.headers['www-authenticate']).toBe(CHALLENGE)
        }
        // The one new refresh token works once more; the old one never again.
        expect((await post('/api/jwt/refresh/', { refresh: (ok[0]?.body as { refresh: string }).refresh })).status).toBe(200)
        expect((await post('/api/jwt/refresh/', { refresh })).body).toEqual(blacklisted)
      }
    }, 60_000)

    it('three concurrent logouts (blacklist) of one refresh token: one 200, the others 401 "Token is blacklisted"', async () => {
      for (let round = 0; round < 3; round++) {
        const { refresh } = (await post('/api/jwt/', { username: 'bob', password: 'bob-pass-2' })).body as { refresh: string }
        const answers = await Promise.all([0, 1, 2].map(() => post('/api/jwt/blacklist/', { refresh })))
        expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401])
        for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body).toEqual(blacklisted)
      }
    }, 60_000)
  })
}

// ES256 as simplejwt configures it (SIGNING_KEY a private PEM): on SQLite only, since nothing here touches the database differently.
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')
describe.skipIf(unavailable('SQLite', sqlite !== undefined))('JWT routes with ES256 and the JWKS document', () => {
  const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })
  let server: RunningReference
  const post = (path: string, body: unknown): Promise<ExchangeResult> => send(server.baseUrl, 'POST', path, { 'Content-Type': 'application/json' }, JSON.stringify(body))

  beforeAll(async () => {
    server = await startReference(await (sqlite as NonNullable<typeof sqlite>).create(), { jwt: { signingKey: keys.privateKey, algorithm: 'ES256' } })
  }, 60_000)
  afterAll(async () => server?.close())

  it('tokens are ES256 with the kid of /api/jwt/jwks/; a server holding only that URL (gatehouse, and simplejwt\'s JWK_URL) accepts them', async () => {
    const obtained = await post('/api/jwt/', { username: 'bob', password: 'bob-pass-2' })
    expect(obtained.status).toBe(200)
    const { access, refresh } = obtained.body as { access: string; refresh: string }
    const header = decodeProtectedHeader(access)
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT' })

    const jwks = await send(server.baseUrl, 'GET', '/api/jwt/jwks/', {})
    expect(jwks.status).toBe(200)
    expect(jwks.headers['cache-control']).toBe('public, max-age=300')
    const body = jwks.body as { keys: Record<string, string>[] }
    expect(body.keys).toHaveLength(1)
    expect(body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: header.kid })
    expect(Object.keys(body.keys[0] ?? {})).not.toContain('d')

    expect((await send(server.baseUrl, 'GET', '/api/schemes/jwt/', { Authorization: `Bearer ${access}` })).body).toEqual(me('bob', access))
    const refreshed = await post('/api/jwt/refresh/', { refresh })
    expect(refreshed.status).toBe(200)

    const url = `${server.baseUrl}/api/jwt/jwks/`
    const resourceServer = new JwtCodec(resolveJwtSettings({ algorithm: 'ES256', jwkUrl: url, allowInsecureJwkUrl: true }))
    expect((await resourceServer.decode(access, 'access'))['user_id']).toBe(2)
    const [theirs] = await simplejwt(KEY, [{ op: 'check', token: (refreshed.body as { access: string }).access, class: 'access' }], { ALGORITHM: 'ES256', JWK_URL: url })
    expect(theirs?.payload?.['user_id']).toBe(2)
    // A token signed with the HMAC of the public key's text (algorithm confusion) is refused on the wire.
    const forged = await new CompactSign(new TextEncoder().encode(JSON.stringify(await server.ref.jwt?.decode(access, 'access'))))
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(keys.publicKey))
    expect((await send(server.baseUrl, 'GET', '/api/schemes/jwt/', { Authorization: `Bearer ${forged}` })).body).toEqual(notValid('Token is invalid or expired'))
  }, 60_000)

  it('OpenAPI describes the JWKS view: no credentials, the key set\'s schema', async () => {
    const doc = (await send(server.baseUrl, 'GET', '/api/openapi.json', {})).body as { paths: Record<string, Record<string, Record<string, unknown>>> }
    const op = doc.paths['/api/jwt/jwks/']?.['get']
    expect(op?.['security']).toEqual([{}])
    expect(JSON.stringify(op?.['responses'])).toContain('"kid"')
  })
})
