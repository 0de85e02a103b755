import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openAuthDatabase, type AuthTestDatabase } from '../../test/helpers/auth-database.js'
import { BACKENDS } from '../../test/helpers/databases.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { createApi } from '../core/api.js'
import { ConfigurationError } from '../core/errors.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import { JwtCodec } from './jwt-codec.js'
import { resolveJwtSettings } from './jwt-settings.js'
import { jwtObtainPairView } from './token-views.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

const KEY = 'last-login-test-signing-key-0123456789'
const CLOCK = 1_700_000_123.75
const api = createApi()
const obtain = (view: ReturnType<typeof api.view>, username: string, password: string): ReturnType<typeof view.handle> =>
  view.handle(buildRequest({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) }))

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`UPDATE_LAST_LOGIN on ${backend.name}`, () => {
    let t: AuthTestDatabase
    let users: KyselyUserStore
    const lastLogin = async (username: string): Promise<number | null> => {
      const row = await t.db.selectFrom('gatehouse_users').select('last_login').where('username', '=', username).executeTakeFirstOrThrow()
      return row.last_login === null ? null : new Date(row.last_login).getTime()
    }

    beforeAll(async () => {
      t = await openAuthDatabase(await backend.create())
      users = new KyselyUserStore({ db: t.db, scrypt: { N: 1024, r: 8, p: 1 } })
      await users.create({ username: 'ann', password: 'ann-pass-1' })
      await users.create({ username: 'ben', password: 'ben-pass-1' })
      await users.create({ username: 'cy', password: 'cy-pass-1' })
    })
    afterAll(async () => t?.close())

    it('off (simplejwt\'s default): obtain leaves last_login null', async () => {
      const codec = new JwtCodec(resolveJwtSettings({ signingKey: KEY }), () => CLOCK)
      expect((await obtain(api.view(jwtObtainPairView({ codec, users })), 'ben', 'ben-pass-1')).status).toBe(200)
      expect(await lastLogin('ben')).toBeNull()
    })

    it('on: a successful obtain sets last_login to the time the pair was made; a failed one does not', async () => {
      const codec = new JwtCodec(resolveJwtSettings({ signingKey: KEY, updateLastLogin: true }), () => CLOCK)
      const view = api.view(jwtObtainPairView({ codec, users }))
      expect((await obtain(view, 'ann', 'wrong')).status).toBe(401)
      expect(await lastLogin('ann')).toBeNull()
      const ok = await obtain(view, 'ann', 'ann-pass-1')
      expect(ok.status).toBe(200)
      expect(await lastLogin('ann')).toBe(Math.floor(CLOCK * 1000))
      expect(await lastLogin('ben')).toBeNull()
    })

    it('updateLastLogin: false for an unknown id or a mapping without the column', async () => {
      expect(await users.updateLastLogin(987_654, new Date())).toBe(false)
      const unmapped = new KyselyUserStore({ db: t.db, userTable: { table: 'gatehouse_users', columns: { id: 'id', username: 'username', password: 'password' }, idType: 'integer' } })
      // Its own user and known value (not another test's), so the tests pass in any order.
      const cy = await users.findByUsername('cy')
      const known = Date.UTC(2024, 4, 1, 12)
      expect(await users.updateLastLogin(cy?.id ?? 0, new Date(known))).toBe(true)
      expect(await unmapped.updateLastLogin(cy?.id ?? 0, new Date(0))).toBe(false)
      expect(await lastLogin('cy')).toBe(known)
    })
  })
}

describe('UPDATE_LAST_LOGIN with a store that cannot record it', () => {
  it('is refused when the view is made, not at the first login', () => {
    const codec = new JwtCodec(resolveJwtSettings({ signingKey: KEY, updateLastLogin: true }))
    const users = new FakeUserStore()
    expect(() => jwtObtainPairView({ codec, users: { authenticate: (u, p) => users.authenticate(u, p) } })).toThrow(ConfigurationError)
  })
})
