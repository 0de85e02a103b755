// Sliding tokens (simplejwt's SlidingToken and its two views) with a real SQLite blacklist store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { freshSqlite, type TestDatabase } from '../../test/helpers/databases.js'
import { createApi } from '../core/api.js'
import type { ApiResponse } from '../core/api-response.js'
import { AuthenticationFailed, ConfigurationError } from '../core/errors.js'
import { openDatabase, type Database } from '../kysely/database.js'
import { jwtBlacklistMigrations } from '../kysely/jwt-blacklist-migrations.js'
import { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from '../kysely/kysely-jwt-blacklist-store.js'
import { migrate } from '../kysely/migrations.js'
import { JWTAuthentication, JWTStatelessUserAuthentication } from './jwt-authentication.js'
import { JwtCodec } from './jwt-codec.js'
import { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'
import { slidingPayloadFor } from './sliding-token.js'
import { jwtBlacklistView, jwtObtainSlidingView, jwtRefreshSlidingView } from './token-views.js'

const KEY = 'sliding-test-signing-key-0123456789abcdef'
let clock = 1_700_000_000
const codecWith = (settings: Partial<JwtSettings> = {}): JwtCodec =>
  new JwtCodec(resolveJwtSettings({ signingKey: KEY, authTokenClasses: ['AccessToken', 'SlidingToken'], ...settings }), () => clock)
const codec = codecWith()
const users = new FakeUserStore()
const api = createApi()
const post = async (view: ReturnType<typeof api.view>, body: unknown): Promise<ApiResponse> =>
  await view.handle(buildRequest({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
const bearer = async (scheme: JWTStatelessUserAuthentication, token: string): Promise<unknown> => {
  try {
    return (await scheme.authenticate(buildRequest({ headers: { Authorization: `Bearer ${token}` } })))?.user.id
  } catch (error) {
    if (error instanceof AuthenticationFailed) return error.detail
    throw error
  }
}

let test: TestDatabase
let database: Database<JwtBlacklistDatabase>
let blacklist: KyselyJwtBlacklistStore
beforeAll(async () => {
  test = freshSqlite()
  database = await openDatabase<JwtBlacklistDatabase>(test.url)
  await migrate(database.db, jwtBlacklistMigrations(database.dialect), 'gatehouse_jwt_migrations')
  blacklist = new KyselyJwtBlacklistStore({ db: database.db })
})
afterAll(async () => {
  await database?.close()
  await test?.drop()
})

describe('jwtObtainSlidingView and jwtRefreshSlidingView', () => {
  it('obtain answers {"token"}: a sliding token, claims in simplejwt\'s order, recorded as outstanding', async () => {
    const response = await post(api.view(jwtObtainSlidingView({ codec, users, blacklist })), { username: 'alice', password: 'alice-pass-1' })
    expect(response.status).toBe(200)
    expect(Object.keys(response.body as object)).toEqual(['token'])
    const claims = await codec.decode((response.body as { token: string }).token, 'sliding')
    expect(Object.keys(claims)).toEqual(['token_type', 'exp', 'iat', 'jti', 'refresh_exp', 'user_id'])
    expect(claims).toMatchObject({ token_type: 'sliding', exp: clock + 300, iat: clock, refresh_exp: clock + 86400, user_id: 1 })
    expect((await blacklist.listForUser(1, 10)).map((t) => t.jti)).toContain(claims['jti'])
    const bad = await post(api.view(jwtObtainSlidingView({ codec, users })), { username: 'alice', password: 'wrong' })
    expect([bad.status, bad.body]).toEqual([401, { detail: 'No active account found with the given credentials' }])
  })

  it('refresh moves exp and iat, keeps jti and refresh_exp; past refresh_exp, after exp, or for a deleted user it is refused', async () => {
    const view = api.view(jwtRefreshSlidingView({ codec, users }))
    const first = slidingPayloadFor(codec, { id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true }, clock)
    clock += 200
    const response = await post(view, { token: await codec.encode(first) })
    expect(response.status).toBe(200)
    const fresh = await codec.decode((response.body as { token: string }).token, 'sliding')
    expect(fresh).toEqual({ ...first, exp: clock + 300, iat: clock })
    // Slid again and again, it still stops at refresh_exp.
    clock = (first['refresh_exp'] as number) + 1
    const late = await post(view, { token: await codec.encode({ ...first, exp: clock + 100 }) })
    expect([late.status, late.body]).toEqual([401, { detail: "Token 'refresh_exp' claim has expired", code: 'token_not_valid' }])
    const expired = await post(view, { token: await codec.encode({ ...first, exp: clock - 1, refresh_exp: clock + 100 }) })
    expect(expired.body).toEqual({ detail: 'Token is invalid or expired', code: 'token_not_valid' })
    const ghost = await post(view, { token: await codec.encode({ ...slidingPayloadFor(codec, { id: 99, username: 'x', isActive: true, isStaff: false, isAuthenticated: true }, clock) }) })
    expect([ghost.status, ghost.body]).toEqual([401, { detail: 'No active account found with the given credentials', code: 'no_active_account' }])
    const missing = await post(view, {})
    expect([missing.status, missing.body]).toEqual([400, { token: ['This field is required.'] }])
  })
})

describe('JWTAuthentication with AUTH_TOKEN_CLASSES', () => {
  it('accepts sliding tokens only when authTokenClasses lists SlidingToken, with every class in the messages', async () => {
    const token = await codec.encode(slidingPayloadFor(codec, { id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true }, clock))
    expect(await bearer(new JWTAuthentication({ codec, users }), token)).toBe(2)
    const accessOnly = new JwtCodec(resolveJwtSettings({ signingKey: KEY }), () => clock)
    expect(await bearer(new JWTAuthentication({ codec: accessOnly, users }), token)).toEqual({
      detail: 'Given token not valid for any token type',
      code: 'token_not_valid',
      messages: [{ token_class: 'AccessToken', token_type: 'access', message: 'Token has wrong type' }],
    })
    const refresh = await codec.encode({ ...codec.newPayload('refresh', clock, 86400), user_id: 2 })
    expect(await bearer(new JWTAuthentication({ codec, users }), refresh)).toEqual({
      detail: 'Given token not valid for any token type',
      code: 'token_not_valid',
      messages: [
        { token_class: 'AccessToken', token_type: 'access', message: 'Token has wrong type' },
        { token_class: 'SlidingToken', token_type: 'sliding', message: 'Token has wrong type' },
      ],
    })
    expect(await bearer(new JWTAuthentication({ codec: codecWith({ authTokenClasses: ['SlidingToken'] }), users }), token)).toBe(2)
  })

  it('with the blacklist store: a blacklisted sliding token no longer authenticates or refreshes', async () => {
    const obtained = await post(api.view(jwtObtainSlidingView({ codec, users, blacklist })), { username: 'bob', password: 'bob-pass-2' })
    const token = (obtained.body as { token: string }).token
    const scheme = new JWTAuthentication({ codec, users, blacklist })
    expect(await bearer(scheme, token)).toBe(2)
    // The admin pages' "blacklist all" (and store.blacklist) covers sliding tokens too.
    expect(await blacklist.blacklistAllForUser(2)).toBeGreaterThanOrEqual(1)
    expect(await bearer(scheme, token)).toEqual({
      detail: 'Given token not valid for any token type',
      code: 'token_not_valid',
      messages: [
        { token_class: 'AccessToken', token_type: 'access', message: 'Token has wrong type' },
        { token_class: 'SlidingToken', token_type: 'sliding', message: 'Token is blacklisted' },
      ],
    })
    const refreshed = await post(api.view(jwtRefreshSlidingView({ codec, users, blacklist })), { token })
    expect([refreshed.status, refreshed.body]).toEqual([401, { detail: 'Token is blacklisted', code: 'token_not_valid' }])
    // Without the store the scheme cannot know (as simplejwt without the blacklist app).
    expect(await bearer(new JWTAuthentication({ codec, users }), token)).toBe(2)
    // The logout view takes refresh tokens only, as simplejwt's TokenBlacklistSerializer.
    const other = await post(api.view(jwtObtainSlidingView({ codec, users, blacklist })), { username: 'alice', password: 'alice-pass-1' })
    const logout = await post(api.view(jwtBlacklistView({ codec, blacklist })), { refresh: (other.body as { token: string }).token })
    expect(logout.body).toEqual({ detail: 'Token has wrong type', code: 'token_not_valid' })
  })

  it('settings: authTokenClasses must name known classes, lifetimes must be seconds', () => {
    expect(() => codecWith({ authTokenClasses: [] })).toThrow(ConfigurationError)
    expect(() => codecWith({ authTokenClasses: ['RefreshToken' as 'AccessToken'] })).toThrow(ConfigurationError)
    expect(() => codecWith({ slidingTokenLifetime: -1 })).toThrow(ConfigurationError)
    expect(() => codecWith({ slidingTokenRefreshExpClaim: '' })).toThrow(ConfigurationError)
    expect(codecWith({ slidingTokenRefreshExpClaim: 'rexp' }).settings.slidingTokenRefreshExpClaim).toBe('rexp')
  })
})
