// The named-token views used directly (no server), with a small in-memory store standing in
// for KyselyNamedTokenStore: the token limit, and who may see and revoke what.
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import type { Authenticated, AuthenticationScheme } from '../authentication/authentication-scheme.js'
import { BasicAuthentication } from '../authentication/basic-authentication.js'
import { SessionAuthentication } from '../authentication/session-authentication.js'
import { TokenAuthentication } from '../authentication/token-authentication.js'
import { FakeSessionStore, FakeTokenStore, FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { JWTAuthentication } from '../jwt/jwt-authentication.js'
import { JwtCodec } from '../jwt/jwt-codec.js'
import { resolveJwtSettings } from '../jwt/jwt-settings.js'
import { accessPayloadFrom, refreshPayloadFor } from '../jwt/token-views.js'
import { createApi } from '../core/api.js'
import { ConfigurationError } from '../core/errors.js'
import type { StoredUser, UserId } from '../core/user.js'
import { NamedTokenLimitExceeded, type CreatedNamedToken, type NamedTokenInfo, type NamedTokenStore, type NewNamedToken } from '../stores/named-token-store.js'
import { namedTokenIssuer } from './named-token-issuer.js'
import { namedTokenDetailView, namedTokensView, revokeAllNamedTokensView } from './named-tokens-views.js'

const BOB: StoredUser = Object.freeze({ id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true })
const ANN: StoredUser = Object.freeze({ id: 3, username: 'ann', isActive: true, isStaff: false, isAuthenticated: true })

/** `X-User: bob` authenticates bob. */
const byHeader: AuthenticationScheme<null> = {
  name: 'ByHeader',
  async authenticate(req): Promise<Authenticated<null> | null> {
    const name = req.headers.get('x-user')
    const user = [BOB, ANN].find((u) => u.username === name)
    return user === undefined ? null : { user, auth: null }
  },
}

function memoryStore(): Pick<NamedTokenStore, 'create' | 'list' | 'revoke' | 'revokeAll'> {
  const rows: NamedTokenInfo[] = []
  let next = 1
  return {
    async create(userId: UserId, token: NewNamedToken): Promise<CreatedNamedToken> {
      // Created at the epoch (fixed answers); an expiry asked for in seconds counts from now, as a store's clock does.
      const expiresAt = token.expiresAt ?? (token.expiresIn === undefined || token.expiresIn === null ? null : new Date(Date.now() + token.expiresIn * 1000))
      const info: NamedTokenInfo = { id: next++, userId, name: token.name, displayPrefix: 'gth_abcdef', created: new Date(0), expiresAt, lastUsedAt: null }
      rows.push(info)
      return { key: `gth_secret${info.id}`, info }
    },
    list: async (userId) => rows.filter((r) => r.userId === userId),
    async revoke(userId, id) {
      const i = rows.findIndex((r) => r.userId === userId && r.id === id)
      if (i === -1) return false
      rows.splice(i, 1)
      return true
    },
    async revokeAll(userId) {
      const before = rows.length
      for (let i = rows.length - 1; i >= 0; i--) if (rows[i]?.userId === userId) rows.splice(i, 1)
      return before - rows.length
    },
  }
}

describe('named-token views', () => {
  const api = createApi({ authentication: [byHeader] })
  const post = (user: string, body: string): ReturnType<typeof buildRequest> =>
    buildRequest({ method: 'POST', headers: { 'x-user': user, 'content-type': 'application/json', 'content-length': String(body.length) }, body })

  it('maxTokensPerUser: past it, 403 with knox\'s message; other users are not counted', async () => {
    const tokens = memoryStore()
    const view = api.view(namedTokensView({ tokens, maxTokensPerUser: 2 }))
    for (const name of ['a', 'b']) expect((await view.handle(post('bob', JSON.stringify({ name })))).status).toBe(201)
    const refused = await view.handle(post('bob', '{"name": "c"}'))
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ detail: 'Maximum amount of tokens allowed per user exceeded.' })
    expect((await view.handle(post('ann', '{"name": "a"}'))).status).toBe(201)
    expect(await tokens.list(BOB.id)).toHaveLength(2)
    expect(() => namedTokensView({ tokens, maxTokensPerUser: 0 })).toThrow(ConfigurationError)
  })

  it('maxTokensPerUser is passed to the store as the limit of its create; a store that finds it reached (a concurrent request won) answers 403, not 500', async () => {
    const limits: unknown[] = []
    // The listing a concurrent request saw (room for one more); the store's own count finds the limit reached.
    const racing = { ...memoryStore(), list: async () => [], create: async (_userId: UserId, token: NewNamedToken): Promise<CreatedNamedToken> => {
      limits.push(token.limit)
      throw new NamedTokenLimitExceeded(2)
    } }
    const refused = await api.view(namedTokensView({ tokens: racing, maxTokensPerUser: 2 })).handle(post('bob', '{"name": "c"}'))
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ detail: 'Maximum amount of tokens allowed per user exceeded.' })
    expect(limits).toEqual([{ max: 2 }])
    // Without maxTokensPerUser, no limit is asked for.
    const created: NewNamedToken[] = []
    const plain = memoryStore()
    const recording = { ...plain, create: async (userId: UserId, token: NewNamedToken) => (created.push(token), plain.create(userId, token)) }
    expect((await api.view(namedTokensView({ tokens: recording })).handle(post('bob', '{"name": "d"}'))).status).toBe(201)
    expect(created[0]?.limit).toBeUndefined()
  })

  it("namedTokenIssuer: maxPerUser (100 by default) is the store's limit on live tokens of its name; the store's refusal is knox's 403", async () => {
    const asked: NewNamedToken[] = []
    const plain = memoryStore()
    const recording = { ...plain, create: async (userId: UserId, token: NewNamedToken) => (asked.push(token), plain.create(userId, token)) }
    await namedTokenIssuer(recording).getOrCreate(2)
    await namedTokenIssuer(recording, { name: 'ci', maxPerUser: 3 }).getOrCreate(2)
    await namedTokenIssuer(recording, { maxPerUser: null }).getOrCreate(2)
    expect(asked.map((t) => t.limit)).toEqual([{ max: 100, name: 'obtain', unexpiredOnly: true }, { max: 3, name: 'ci', unexpiredOnly: true }, undefined])
    const racing = { list: async () => [], create: async (): Promise<CreatedNamedToken> => { throw new NamedTokenLimitExceeded(100) } }
    await expect(namedTokenIssuer(racing).getOrCreate(2)).rejects.toMatchObject({ status: 403, message: 'Maximum amount of tokens allowed per user exceeded.' })
  })

  it('create answers the token once; list never shows it; revoke is per user; anonymous is 403 (no challenge scheme)', async () => {
    const tokens = memoryStore()
    const list = api.view(namedTokensView({ tokens }))
    const created = await list.handle(post('bob', '{"name": "laptop"}'))
    expect(created.body).toMatchObject({ id: 1, name: 'laptop', prefix: 'gth_abcdef', token: 'gth_secret1', expires: null, last_used: null })
    const listed = await list.handle(buildRequest({ headers: { 'x-user': 'bob' } }))
    expect(listed.body).toEqual([{ id: 1, name: 'laptop', prefix: 'gth_abcdef', created: '1970-01-01T00:00:00.000Z', expires: null, last_used: null }])
    const detail = api.view(namedTokenDetailView({ tokens }))
    const del = (user: string, id: string): ReturnType<typeof detail.handle> =>
      detail.handle({ ...buildRequest({ method: 'DELETE', headers: { 'x-user': user } }), params: { id } })
    expect((await del('ann', '1')).status).toBe(404)
    expect((await del('bob', 'x1')).status).toBe(404)
    expect((await del('bob', '01')).status).toBe(204)
    expect((await del('bob', '1')).status).toBe(404)
    const all = api.view(revokeAllNamedTokensView({ tokens }))
    await list.handle(post('bob', '{"name": "x"}'))
    expect((await all.handle(buildRequest({ method: 'POST', headers: { 'x-user': 'bob' } }))).status).toBe(204)
    expect(await tokens.list(BOB.id)).toEqual([])
    expect((await list.handle(buildRequest({}))).status).toBe(403)
  })
})

describe('a named token never outlives the credential that made it (each scheme says when its credential expires)', () => {
  const users = new FakeUserStore()
  const json = (body: unknown, headers: Record<string, string>): ReturnType<typeof buildRequest> => {
    const text = JSON.stringify(body)
    return buildRequest({ method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(text.length), ...headers }, body: text })
  }
  const expiresOf = (response: { readonly body: unknown }): string | null => (response.body as { expires: string | null }).expires

  it('JWT: a 5-minute access token mints tokens expiring at its exp at the latest (asking for none or a later one gets exp)', async () => {
    const codec = new JwtCodec(resolveJwtSettings({ signingKey: 'named-token-cap-signing-key-0123456789abcdef' }))
    const now = codec.currentTime()
    const access = await codec.encode(accessPayloadFrom(codec, refreshPayloadFor(codec, BOB, now), now))
    const exp = new Date(Math.floor(now + 300) * 1000).toISOString()
    const view = createApi().view(namedTokensView({ tokens: memoryStore(), authentication: [new JWTAuthentication({ codec, users })] }))
    const bearer = { authorization: `Bearer ${access}` }
    const forever = await view.handle(json({ name: 'x' }, bearer))
    expect(forever.status).toBe(201)
    expect(expiresOf(forever)).toBe(exp)
    expect(expiresOf(await view.handle(json({ name: 'day', expires_in: 86_400 }, bearer)))).toBe(exp)
    const sooner = await view.handle(json({ name: 'minute', expires_in: 60 }, bearer))
    expect(Date.parse(expiresOf(sooner) ?? '')).toBeLessThan(Date.parse(exp))
  })

  it('session: tokens expire when the session does at the latest', async () => {
    const sessions = new FakeSessionStore()
    const sessionEnd = new Date(Date.now() + 3_600_000)
    await sessions.save('s'.repeat(32), { userId: BOB.id, data: {}, expiresAt: sessionEnd })
    const view = createApi().view(namedTokensView({ tokens: memoryStore(), authentication: [new SessionAuthentication({ sessions, users })] }))
    const secret = 'c'.repeat(32)
    const created = await view.handle(json({ name: 'x' }, { cookie: `sessionid=${'s'.repeat(32)}; csrftoken=${secret}`, 'x-csrftoken': secret }))
    expect(created.status).toBe(201)
    expect(expiresOf(created)).toBe(sessionEnd.toISOString())
  })

  it('a password (Basic) or a DRF token, which do not expire, mint tokens that do not either', async () => {
    const tokens = new FakeTokenStore()
    const key = (await tokens.getOrCreate(BOB.id)).key
    const view = createApi().view(namedTokensView({ tokens: memoryStore(), authentication: [new BasicAuthentication({ users }), new TokenAuthentication({ tokens, users })] }))
    expect(expiresOf(await view.handle(json({ name: 'p' }, { authorization: `Basic ${btoa('bob:bob-pass-2')}` })))).toBeNull()
    expect(expiresOf(await view.handle(json({ name: 't' }, { authorization: `Token ${key}` })))).toBeNull()
  })
})
