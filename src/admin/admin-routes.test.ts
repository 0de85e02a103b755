// `adminRoutes` on an app of its own (node:http, SQLite, its own prefix and page size): options
// checked at declaration, users paged, failed logins throttled, the user-created hook reached
// from the add form; and property tests of the parsers of client input (`next`, user ids).
import { createServer, type Server } from 'node:http'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { safeNext } from './login-pages.js'
import { parseUserId } from './staff-pages.js'
import { adminRoutes } from 'drf-gatehouse/admin'
import { ConfigurationError, createApi, defaultPasswordValidators, LoginFailureThrottle, MemoryThrottleStore, type PasswordValidator, type StoredUser } from 'drf-gatehouse'
import { authMigrations, KyselySessionStore, KyselyTokenStore, KyselyUserStore, migrate, openDatabase, type AuthDatabase, type Database } from 'drf-gatehouse/kysely'
import { router } from 'drf-gatehouse/node'
import { freshSqlite, type TestDatabase } from '../../test/helpers/databases.js'
import { AdminClient, adminLogin, csrfOf } from '../../test/helpers/admin-client.js'

const FAST = { N: 1024, r: 8, p: 1 }

describe('adminRoutes on an app of its own', () => {
  let target: TestDatabase | null = null
  let database: Database<AuthDatabase> | null = null
  let server: Server | null = null
  afterEach(async () => {
    await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())))
    server?.closeAllConnections()
    await database?.close()
    await target?.drop()
    server = null
    database = null
    target = null
  })

  async function start(extra: { loginFailures?: LoginFailureThrottle; onUserCreated?: (user: StoredUser) => Promise<void>; passwordValidators?: readonly PasswordValidator[]; storeValidators?: readonly PasswordValidator[] } = {}): Promise<{ base: string; users: KyselyUserStore; tokens: KyselyTokenStore }> {
    target = freshSqlite()
    database = await openDatabase<AuthDatabase>(target.url)
    await migrate(database.db, authMigrations(database.dialect))
    const tokens = new KyselyTokenStore({ db: database.db })
    const users = new KyselyUserStore({ db: database.db, scrypt: FAST, passwordValidators: extra.storeValidators, ...(extra.onUserCreated === undefined ? {} : { onUserCreated: extra.onUserCreated }) })
    await users.create({ username: 'root', password: 'root-pass-1', isStaff: true })
    const routes = adminRoutes({
      api: createApi({ allowedHosts: ['127.0.0.1'] }),
      users,
      tokens,
      sessions: new KyselySessionStore({ db: database.db }),
      prefix: '/staff/tools/',
      pageSize: 2,
      siteTitle: 'Back office',
      ...(extra.loginFailures === undefined ? {} : { loginFailures: extra.loginFailures }),
      passwordValidators: extra.passwordValidators,
    })
    server = createServer(router(routes))
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no address')
    return { base: `http://127.0.0.1:${address.port}`, users, tokens }
  }

  it('refuses bad options at declaration, naming them', () => {
    const api = createApi()
    const sessions = { get: async () => null, save: async () => undefined, delete: async () => undefined }
    const users = { findById: async () => null, findByUsername: async () => null, authenticate: async () => null, checkPassword: async () => false, create: async () => { throw new Error('no') } }
    // @ts-expect-error a user store without list, setActive and setPassword
    expect(() => adminRoutes({ api, users, sessions })).toThrow(/"users" must have list\(\)/)
    const full = { ...users, list: async () => ({ users: [], count: 0 }), setActive: async () => false, setPassword: async () => false }
    for (const prefix of ['admin/', '/admin', '/a b/', '//', '/:id/']) {
      expect(() => adminRoutes({ api, users: full, sessions, prefix }), prefix).toThrow(ConfigurationError)
    }
    expect(() => adminRoutes({ api, users: full, sessions, pageSize: 0 })).toThrow(/pageSize/)
    // Without a token store or deleteForUser, those parts are simply absent.
    const paths = adminRoutes({ api, users: full, sessions }).map((r) => r.path)
    expect(paths).not.toContain('/admin/users/:id/token/')
    expect(paths).not.toContain('/admin/users/:id/sessions/end/')
  })

  it('the pages are ordinary views on the session scheme: OPTIONS without a session is the login redirect, a page varies on Cookie, the stylesheet does not', async () => {
    const { base } = await start()
    const anonymous = new AdminClient(base)
    const options = await anonymous.request('OPTIONS', '/staff/tools/users/1/')
    expect(options.status).toBe(302)
    expect(options.headers.get('location')).toBe('/staff/tools/login/')
    const form = await anonymous.get('/staff/tools/login/')
    expect(form.headers.get('vary')).toBe('Cookie')
    expect((await anonymous.get('/staff/tools/admin.css')).headers.get('vary')).toBeNull()
    const client = new AdminClient(base)
    await adminLogin(client, 'root', 'root-pass-1', '/staff/tools/')
    expect((await client.get('/staff/tools/')).headers.get('vary')).toBe('Cookie')
  })

  it('pages the users (pageSize) under its own prefix, with the search kept in the links', async () => {
    const { base, users } = await start()
    for (const name of ['ann', 'ben', 'cat', 'dan']) await users.create({ username: name, password: null })
    const client = new AdminClient(base)
    expect((await adminLogin(client, 'root', 'root-pass-1', '/staff/tools/')).status).toBe(303)
    const first = await client.get('/staff/tools/')
    expect(first.html).toContain('<title>Users | Back office</title>')
    expect(first.html).toContain('Page 1 of 3')
    expect(first.html).toContain('href="/staff/tools/?page=2"')
    expect((await client.get('/staff/tools/?page=3')).html).toContain('>root</a>')
    const searched = await client.get('/staff/tools/?q=a')
    expect(searched.html).toContain('3 users matching')
    expect(searched.html).toContain('href="/staff/tools/?q=a&#38;page=2"')
    // Past the last page: an empty page, never an error.
    expect((await client.get('/staff/tools/?page=999999')).status).toBe(200)
  })

  it('throttles failed logins with the given LoginFailureThrottle: a 429 page with Retry-After, right password included', async () => {
    const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '2/min', numProxies: 0 })
    const { base } = await start({ loginFailures })
    const client = new AdminClient(base)
    const form = await client.get('/staff/tools/login/')
    for (let i = 0; i < 2; i++) {
      expect((await client.post('/staff/tools/login/', { csrfmiddlewaretoken: csrfOf(form), username: 'root', password: 'wrong' })).status).toBe(200)
    }
    const throttled = await client.post('/staff/tools/login/', { csrfmiddlewaretoken: csrfOf(form), username: 'root', password: 'root-pass-1' })
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(throttled.html).toContain('Request was throttled.')
    expect(client.cookies.has('sessionid')).toBe(false)
  })

  /** A validator of one's own, as a user writes one: Django's interface, async allowed. */
  const noTools: PasswordValidator = {
    validate: async (password, user) => (password.toLowerCase().includes('tools') ? [`No tools in the password of ${String((user as { username?: string } | null)?.username)}.`] : []),
    helpText: () => 'Your password can’t contain “tools”.',
  }

  it("the add-user and set-password forms run the user store's passwordValidators (one's own beside Django's)", async () => {
    const { base, users } = await start({ storeValidators: [...defaultPasswordValidators(), noTools] })
    const client = new AdminClient(base)
    await adminLogin(client, 'root', 'root-pass-1', '/staff/tools/')
    const form = await client.get('/staff/tools/users/add/')
    expect(form.html).toContain('<li>Your password can’t contain “tools”.</li><')
    const refused = await client.post('/staff/tools/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'ann', password1: 'Tools', password2: 'Tools', is_active: '1' })
    expect(refused.status).toBe(400)
    expect(refused.html).toContain('This password is too short. It must contain at least 8 characters.')
    expect(refused.html).toContain('No tools in the password of ann.')
    expect(await users.findByUsername('ann')).toBeNull()
    const created = await client.post('/staff/tools/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'ann', password1: 'lantern-grove-5', password2: 'lantern-grove-5', is_active: '1' })
    expect(created.status).toBe(303)
    const ann = await users.findByUsername('ann')
    const set = await client.post(`/staff/tools/users/${String(ann?.id)}/password/`, { csrfmiddlewaretoken: csrfOf(form), password1: 'my-tools-are-long', password2: 'my-tools-are-long' })
    expect(set.status).toBe(400)
    expect(set.html).toContain('No tools in the password of ann.')
    expect(await users.authenticate('ann', 'lantern-grove-5')).not.toBeNull()
  })

  it("the admin's passwordValidators option wins over the store's; [] turns validation off", async () => {
    const { base, users } = await start({ storeValidators: [noTools], passwordValidators: [] })
    const client = new AdminClient(base)
    await adminLogin(client, 'root', 'root-pass-1', '/staff/tools/')
    const form = await client.get('/staff/tools/users/add/')
    expect(form.html).not.toContain('id="password-help"')
    expect((await client.post('/staff/tools/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'ann', password1: 'tools', password2: 'tools', is_active: '1' })).status).toBe(303)
    expect(await users.authenticate('ann', 'tools')).not.toBeNull()
  })

  it('a user made in the add form goes through the store, so onUserCreated gives them a token (DRF\'s recipe)', async () => {
    const holder: { tokens?: KyselyTokenStore } = {}
    const { base, users, tokens } = await start({ onUserCreated: async (user) => void (await holder.tokens?.getOrCreate(user.id)) })
    holder.tokens = tokens
    const client = new AdminClient(base)
    await adminLogin(client, 'root', 'root-pass-1', '/staff/tools/')
    const form = await client.get('/staff/tools/users/add/')
    const created = await client.post('/staff/tools/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'svc.bot', password1: '', password2: '', is_active: '1' })
    expect(created.status).toBe(303)
    const bot = await users.findByUsername('svc.bot')
    expect(bot).not.toBeNull()
    expect(await tokens.findByUser(bot?.id ?? 0)).not.toBeNull()
    expect((await client.get(created.headers.get('location') ?? '')).html).toContain('A token created ')
  })
})

describe('parsers of client input (property tests)', () => {
  it('safeNext answers a path under the prefix, never another origin', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.constantFrom('/admin/', '/a/b/'), (next, prefix) => {
        const where = safeNext(next, prefix)
        expect(where.startsWith(prefix)).toBe(true)
        expect(where.startsWith('//')).toBe(false)
        expect(where.includes('\\')).toBe(false)
        // Resolved against the site, it stays on the site.
        expect(new URL(where, 'https://site.example').origin).toBe('https://site.example')
      }),
      { numRuns: 2000 },
    )
    fc.assert(
      fc.property(fc.webPath(), (path) => {
        expect(safeNext(`/admin/${path}`, '/admin/').startsWith('/admin/')).toBe(true)
      }),
    )
  })

  it('parseUserId: digit strings up to 15 characters are numbers, anything else stays text (the store then finds nothing)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const id = parseUserId(text)
        if (typeof id === 'number') {
          expect(Number.isSafeInteger(id)).toBe(true)
          expect(/^[0-9]{1,15}$/.test(text)).toBe(true)
        } else expect(id).toBe(text)
      }),
      { numRuns: 2000 },
    )
    expect(parseUserId('42')).toBe(42)
    expect(parseUserId('9'.repeat(16))).toBe('9'.repeat(16))
  })
})
