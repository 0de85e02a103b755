// Issue 36 item 9: simplejwt 5.3's CHECK_REVOKE_TOKEN (`checkRevokeToken`). Tokens carry
// `hash_password`, MD5 of the stored password hash in upper-case hex, and JWTAuthentication
// and the refresh views refuse one whose digest no longer matches the user's current hash
// (401 password_changed), on SQLite and PostgreSQL; and the digest is simplejwt 5.3's
// `get_md5_hash_password` of a hash Django wrote (Debian's simplejwt is 5.2.2, without the
// setting, so its algorithm is run in Python rather than a running simplejwt 5.3).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAuthDatabase, type AuthTestDatabase } from '../../test/helpers/auth-database.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { BACKENDS } from '../../test/helpers/databases.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { backendUnavailable, unavailable } from '../../test/helpers/requirements.js'
import { createApi } from '../core/api.js'
import type { ApiResponse } from '../core/api-response.js'
import { jsonResponse } from '../core/api-response.js'
import { ConfigurationError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import { JWTAuthentication } from './jwt-authentication.js'
import { JwtCodec } from './jwt-codec.js'
import { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'
import { passwordHashDigest } from './revoke-token.js'
import { jwtObtainPairView, jwtObtainSlidingView, jwtRefreshSlidingView, jwtRefreshView, refreshPayloadFor } from './token-views.js'

const KEY = 'revoke-token-test-signing-key-0123456789'
const api = createApi()
const PASSWORD_CHANGED = { detail: "The user's password has been changed.", code: 'password_changed' }

/** simplejwt's get_md5_hash_password, written again with node:crypto: MD5 of the UTF-8 text, upper-case hex. */
const md5Upper = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex').toUpperCase()

const post = async (view: ReturnType<typeof api.view>, body: Record<string, string>): Promise<ApiResponse> =>
  view.handle(buildRequest({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))

/** The views and a protected endpoint of one codec. */
function endpoints(codec: JwtCodec, users: KyselyUserStore) {
  const whoami = api.view({
    handlers: { GET: (ctx) => jsonResponse(200, { username: ctx.user.username }) },
    authentication: [new JWTAuthentication({ codec, users })],
  })
  const obtain = api.view(jwtObtainPairView({ codec, users }))
  const refresh = api.view(jwtRefreshView({ codec, users }))
  const obtainSliding = api.view(jwtObtainSlidingView({ codec, users }))
  const refreshSliding = api.view(jwtRefreshSlidingView({ codec, users }))
  return {
    get: async (token: string): Promise<ApiResponse> => whoami.handle(buildRequest({ headers: { authorization: `Bearer ${token}` } })),
    pair: async (username: string, password: string): Promise<{ access: string; refresh: string }> => {
      const answer = await post(obtain, { username, password })
      expect(answer.status).toBe(200)
      return answer.body as { access: string; refresh: string }
    },
    refresh: (token: string): Promise<ApiResponse> => post(refresh, { refresh: token }),
    sliding: async (username: string, password: string): Promise<string> => {
      const answer = await post(obtainSliding, { username, password })
      expect(answer.status).toBe(200)
      return (answer.body as { token: string }).token
    },
    refreshSliding: (token: string): Promise<ApiResponse> => post(refreshSliding, { token }),
  }
}

const codecWith = (settings: Partial<JwtSettings>): JwtCodec => new JwtCodec(resolveJwtSettings({ signingKey: KEY, authTokenClasses: ['AccessToken', 'SlidingToken'], ...settings }))

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`checkRevokeToken (simplejwt 5.3's CHECK_REVOKE_TOKEN) on ${backend.name}`, () => {
    let t: AuthTestDatabase
    let users: KyselyUserStore
    const storedHash = async (username: string): Promise<string> =>
      (await t.db.selectFrom('gatehouse_users').select('password').where('username', '=', username).executeTakeFirstOrThrow()).password

    beforeAll(async () => {
      t = await openAuthDatabase(await backend.create())
      users = new KyselyUserStore({ db: t.db, scrypt: { N: 1024, r: 8, p: 1 } })
      for (const username of ['ann', 'ben', 'cy', 'dot']) await users.create({ username, password: `${username}-pass-1` })
    })
    afterAll(async () => t?.close())

    it('on: every token carries hash_password, MD5 of the stored hash; all of them work until the password changes, then none does (401 password_changed)', async () => {
      const codec = codecWith({ checkRevokeToken: true })
      const e = endpoints(codec, users)
      const { access, refresh } = await e.pair('ann', 'ann-pass-1')
      const sliding = await e.sliding('ann', 'ann-pass-1')
      const digest = md5Upper(await storedHash('ann'))
      expect(digest).toMatch(/^[0-9A-F]{32}$/)
      for (const [token, type] of [[access, 'access'], [refresh, 'refresh'], [sliding, 'sliding']] as const) {
        const payload = await codec.decode(token, type)
        expect(payload['hash_password']).toBe(digest)
        // simplejwt's for_user: the claim right after the user id.
        expect(Object.keys(payload).slice(-2)).toEqual(['user_id', 'hash_password'])
      }
      expect(await e.get(access)).toMatchObject({ status: 200, body: { username: 'ann' } })
      expect(await e.get(sliding)).toMatchObject({ status: 200, body: { username: 'ann' } })
      const refreshed = await e.refresh(refresh)
      expect(refreshed.status).toBe(200)
      const newAccess = (refreshed.body as { access: string }).access
      expect((await codec.decode(newAccess, 'access'))['hash_password']).toBe(digest)
      expect((await e.refreshSliding(sliding)).status).toBe(200)

      const ann = (await users.findByUsername('ann')) as StoredUser
      await users.setPassword(ann.id, 'ann-pass-2')
      for (const token of [access, newAccess, sliding]) expect(await e.get(token)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      expect(await e.refresh(refresh)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      expect(await e.refreshSliding(sliding)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })

      // A new login gets tokens of the new hash, and another user's tokens never stopped.
      const fresh = await e.pair('ann', 'ann-pass-2')
      expect(await e.get(fresh.access)).toMatchObject({ status: 200 })
      expect((await e.refresh(fresh.refresh)).status).toBe(200)
    })

    it('on: the same password set again (a new salt) and an unusable password end the tokens too; a token without the claim is refused', async () => {
      const codec = codecWith({ checkRevokeToken: true })
      const e = endpoints(codec, users)
      const ben = (await users.findByUsername('ben')) as StoredUser
      const first = await e.pair('ben', 'ben-pass-1')
      await users.setPassword(ben.id, 'ben-pass-1')
      expect(await e.get(first.access)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      const second = await e.pair('ben', 'ben-pass-1')
      await users.setPassword(ben.id, null)
      expect(await e.get(second.access)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      expect(await e.refresh(second.refresh)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })

      // Minted before the flag was on (no claim), or with a claim of another hash.
      const cy = (await users.findByUsername('cy')) as StoredUser
      const now = codec.currentTime()
      const bare = await codecWith({}).encode(refreshPayloadFor(codecWith({}), cy, now))
      expect(await e.refresh(bare)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      const other = await codec.encode(refreshPayloadFor(codec, cy, now, await storedHash('dot')))
      expect(await e.refresh(other)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      expect((await e.refresh(await codec.encode(refreshPayloadFor(codec, cy, now, await storedHash('cy'))))).status).toBe(200)
    })

    it("off (simplejwt's default): no claim, and tokens outlive a password change", async () => {
      const codec = codecWith({})
      const e = endpoints(codec, users)
      const { access, refresh } = await e.pair('dot', 'dot-pass-1')
      expect(await codec.decode(access, 'access')).not.toHaveProperty('hash_password')
      const dot = (await users.findByUsername('dot')) as StoredUser
      await users.setPassword(dot.id, 'dot-pass-2')
      expect((await e.get(access)).status).toBe(200)
      expect((await e.refresh(refresh)).status).toBe(200)
    })

    it('revokeTokenClaim names the claim', async () => {
      const codec = codecWith({ checkRevokeToken: true, revokeTokenClaim: 'pwd' })
      const e = endpoints(codec, users)
      const { access } = await e.pair('cy', 'cy-pass-1')
      const payload = await codec.decode(access, 'access')
      expect(payload['pwd']).toBe(md5Upper(await storedHash('cy')))
      expect(payload).not.toHaveProperty('hash_password')
      expect((await e.get(access)).status).toBe(200)
    })
  })
}

describe('checkRevokeToken without a store that reads hashes', () => {
  it('is refused when the views and JWTAuthentication are made, not at the first request', () => {
    const codec = codecWith({ checkRevokeToken: true })
    const fake = new FakeUserStore()
    const users = { authenticate: (u: string, p: string) => fake.authenticate(u, p), findById: (id: number | string) => fake.findById(id) }
    expect(() => new JWTAuthentication({ codec, users })).toThrow(ConfigurationError)
    for (const make of [jwtObtainPairView, jwtObtainSlidingView]) expect(() => make({ codec, users })).toThrow(/checkRevokeToken.*storedPasswordHash/)
    for (const make of [jwtRefreshView, jwtRefreshSlidingView]) expect(() => make({ codec, users })).toThrow(ConfigurationError)
    // Off, the same store is fine.
    expect(() => new JWTAuthentication({ codec: codecWith({}), users })).not.toThrow()
  })

  it('a token for a user made by hand needs the hash', () => {
    const codec = codecWith({ checkRevokeToken: true })
    const bob = { id: 2, username: 'bob', isActive: true, isStaff: false, isAuthenticated: true } as const
    expect(() => refreshPayloadFor(codec, bob, 1_700_000_000)).toThrow(ConfigurationError)
    expect(refreshPayloadFor(codec, bob, 1_700_000_000, null)['hash_password']).toBe(md5Upper(''))
  })

  it('revokeTokenClaim must be a non-empty string', () => {
    expect(() => resolveJwtSettings({ signingKey: KEY, revokeTokenClaim: '' })).toThrow(ConfigurationError)
  })
})

describe("the digest is simplejwt 5.3's get_md5_hash_password of the hash Django wrote", () => {
  const python = spawnSync('/usr/bin/python3', ['-c', 'import django'], { stdio: 'ignore' }).status === 0
  describe.skipIf(unavailable('Django (/usr/bin/python3 with python3-django)', python))('with Django', () => {
    it('the same hex as hashlib.md5(user.password.encode()).hexdigest().upper(), and a token simplejwt 5.3 would mint authenticates until the password changes', async () => {
      const script = [
        'import hashlib, json, django',
        'from django.conf import settings',
        "settings.configure(PASSWORD_HASHERS=['django.contrib.auth.hashers.PBKDF2PasswordHasher'])",
        'django.setup()',
        'from django.contrib.auth.hashers import make_password',
        "encoded = make_password('käse-pass-1')",
        // rest_framework_simplejwt/utils.py (5.3.0): get_md5_hash_password
        'print(json.dumps([encoded, hashlib.md5(encoded.encode()).hexdigest().upper()]))',
      ].join('\n')
      const run = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' })
      expect(run.status, run.stderr).toBe(0)
      const [encoded, digest] = JSON.parse(run.stdout) as [string, string]
      expect(encoded).toMatch(/^pbkdf2_sha256\$/)
      expect(passwordHashDigest(encoded)).toBe(digest)
      // Not ASCII: Python's encode() is UTF-8.
      expect(passwordHashDigest('scrypt$ä€😀')).toBe(md5Upper('scrypt$ä€😀'))

      const t = await openAuthDatabase(await BACKENDS[0]!.create())
      try {
        const users = new KyselyUserStore({ db: t.db, scrypt: { N: 1024, r: 8, p: 1 } })
        const eve = await users.create({ username: 'eve', password: null })
        await t.db.updateTable('gatehouse_users').set({ password: encoded }).where('username', '=', 'eve').execute()
        const codec = codecWith({ checkRevokeToken: true })
        // simplejwt 5.3's AccessToken.for_user(eve) with CHECK_REVOKE_TOKEN, claim by claim.
        const now = Math.floor(codec.currentTime())
        const minted = await codec.encode({ token_type: 'access', exp: now + 300, iat: now, jti: 'e'.repeat(32), user_id: eve.id, hash_password: digest })
        const e = endpoints(codec, users)
        expect(await e.get(minted)).toMatchObject({ status: 200, body: { username: 'eve' } })
        expect(refreshPayloadFor(codec, eve, now, encoded)['hash_password']).toBe(digest)
        await users.setPassword(eve.id, 'eve-pass-2')
        expect(await e.get(minted)).toMatchObject({ status: 401, body: PASSWORD_CHANGED })
      } finally {
        await t.close()
      }
    })
  })
})
