import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { createApi } from '../core/api.js'
import type { ApiResponse } from '../core/api-response.js'
import { JwtCodec } from './jwt-codec.js'
import { resolveJwtSettings } from './jwt-settings.js'
import type { JwtBlacklistStore } from '../stores/jwt-blacklist-store.js'
import { accessPayloadFrom, jwtBlacklistView, jwtRefreshView, jwtVerifyView, refreshPayloadFor } from './token-views.js'

const users = new FakeUserStore()
const api = createApi()
let clock = 1_700_000_000
const codec = new JwtCodec(resolveJwtSettings({ signingKey: 'views-test-signing-key-0123456789', rotateRefreshTokens: true }), () => clock)
const bob = { id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true } as const

const refresh = async (view: ReturnType<typeof api.view>, token: string): Promise<ApiResponse> =>
  view.handle(buildRequest({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh: token }) }))

describe('jwtRefreshView', () => {
  it('ROTATE_REFRESH_TOKENS: a new refresh token (new jti, iat and exp, same other claims); the access keeps the old iat', async () => {
    const view = api.view(jwtRefreshView({ codec, users }))
    const old = refreshPayloadFor(codec, bob, clock)
    clock += 60
    const response = await refresh(view, await codec.encode({ ...old, scope: 'read' }))
    expect(response.status).toBe(200)
    const body = response.body as { access: string; refresh: string }
    expect(Object.keys(body)).toEqual(['access', 'refresh'])
    const rotated = await codec.decode(body.refresh, 'refresh')
    expect(Object.keys(rotated)).toEqual(['token_type', 'exp', 'iat', 'jti', 'user_id', 'scope'])
    expect(rotated).toMatchObject({ user_id: 2, scope: 'read', iat: clock, exp: clock + 86400 })
    expect(rotated['jti']).not.toBe(old['jti'])
    const access = await codec.decode(body.access, 'access')
    expect(access).toMatchObject({ user_id: 2, scope: 'read', iat: old['iat'], exp: clock + 300 })
  })

  it('refuses a deleted user (401 no_active_account) and a refresh token used as nothing else', async () => {
    const view = api.view(jwtRefreshView({ codec, users }))
    const ghost = refreshPayloadFor(codec, { ...bob, id: 99 }, clock)
    const response = await refresh(view, await codec.encode(ghost))
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ detail: 'No active account found with the given credentials', code: 'no_active_account' })
    const access = await codec.encode(accessPayloadFrom(codec, refreshPayloadFor(codec, bob, clock), clock))
    expect((await refresh(view, access)).body).toEqual({ detail: 'Token has wrong type', code: 'token_not_valid' })
  })
})

describe('BLACKLIST_AFTER_ROTATION', () => {
  it('rotation blacklists the old refresh token; verify then answers 400 "Token is blacklisted" as 5.2.2 does', async () => {
    const rows = new Map<string, boolean>()
    const blacklist: JwtBlacklistStore = {
      addOutstanding: async (t) => void (rows.has(t.jti) || rows.set(t.jti, false)),
      blacklist: async (t) => rows.get(t.jti) !== true && rows.set(t.jti, true).size > 0,
      isBlacklisted: async (jti) => rows.get(jti) === true,
      flushExpired: async () => 0,
    }
    const strict = new JwtCodec(resolveJwtSettings({ signingKey: 'views-test-signing-key-0123456789', rotateRefreshTokens: true, blacklistAfterRotation: true }), () => clock)
    const view = api.view(jwtRefreshView({ codec: strict, users, blacklist }))
    const old = await strict.encode(refreshPayloadFor(strict, bob, clock))
    const first = await refresh(view, old)
    expect(first.status).toBe(200)
    const rotated = (first.body as { refresh: string }).refresh
    expect(rows.get(String((await strict.decode(rotated, 'refresh'))['jti']))).toBe(false)
    expect((await refresh(view, old)).body).toEqual({ detail: 'Token is blacklisted', code: 'token_not_valid' })
    expect((await refresh(view, rotated)).status).toBe(200)
    const verify = api.view(jwtVerifyView({ codec: strict, blacklist }))
    const answer = await verify.handle(buildRequest({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: old }) }))
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ non_field_errors: ['Token is blacklisted'] })
  })
})

describe('the atomic claim of a refresh token (issue 45 item 19)', () => {
  /**
   * The state a concurrent request leaves between this request's `isBlacklisted` check and its
   * claim: the token read as usable, then `blacklist()` answers false (another request claimed
   * it first). Set here without a race, so the outcome does not depend on scheduling.
   */
  function claimedByAnother(): JwtBlacklistStore & { readonly outstanding: string[] } {
    const outstanding: string[] = []
    return {
      outstanding,
      addOutstanding: async (t) => void outstanding.push(t.jti),
      blacklist: async () => false,
      isBlacklisted: async () => false,
      flushExpired: async () => 0,
    }
  }
  const strict = new JwtCodec(resolveJwtSettings({ signingKey: 'views-test-signing-key-0123456789', rotateRefreshTokens: true, blacklistAfterRotation: true }), () => clock)

  it('refresh with rotation: a claim another request won is 401 "Token is blacklisted", and no token is issued', async () => {
    const blacklist = claimedByAnother()
    const view = api.view(jwtRefreshView({ codec: strict, users, blacklist }))
    const response = await refresh(view, await strict.encode(refreshPayloadFor(strict, bob, clock)))
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ detail: 'Token is blacklisted', code: 'token_not_valid' })
    expect(blacklist.outstanding).toEqual([])
  })

  it('logout: a claim another request won is 401 "Token is blacklisted"', async () => {
    const view = api.view(jwtBlacklistView({ codec: strict, blacklist: claimedByAnother() }))
    const response = await refresh(view, await strict.encode(refreshPayloadFor(strict, bob, clock)))
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ detail: 'Token is blacklisted', code: 'token_not_valid' })
  })
})
