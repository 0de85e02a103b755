/**
 * `createGatehouse`'s features and `api` option: `jwt()`, `oauth2()` and `admin()` join the one
 * call (their tables migrate with gatehouse's, a database migrated by hand the old way goes on
 * cleanly), their routes answer over HTTP on the call's `api`, and the setup entry, bundled,
 * holds no feature's code.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AnonRateThrottle, ConfigurationError, IsAuthenticated, jsonResponse, route } from './index.js'
import { router } from './adapters/node-http/index.js'
import { admin } from './admin/index.js'
import { jwt, JWTAuthentication } from './jwt/index.js'
import { oauth2, OAuth2Authentication } from './oauth2/index.js'
import { openDatabase } from './kysely/database.js'
import { jwtBlacklistMigrations } from './kysely/jwt-blacklist-migrations.js'
import { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from './kysely/kysely-jwt-blacklist-store.js'
import { authMigrations, migrate } from './kysely/migrations.js'
import { tableExists } from './kysely/migration-runner.js'
import { createGatehouse, type Gatehouse } from './setup.js'
import { BACKENDS, freshSqlite, type TestDatabase } from '../test/helpers/databases.js'
import { backendUnavailable } from '../test/helpers/requirements.js'

const SCRYPT = { N: 1024, r: 8, p: 1 }
const KEY = 'django-insecure-feature-test-key-0123456789abcdef'

/** The names recorded in a migration tracking table, in order. */
async function recorded(db: Kysely<unknown>, table: string): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from ${sql.table(table)} order by name`.execute(db)
  return rows.rows.map((row) => row.name)
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

describe.each(BACKENDS)('a database migrated the old way, on $name', (backend) => {
  let target: TestDatabase

  beforeAll(async () => {
    if (!backend.available) return
    target = await backend.create()
  })
  afterAll(async () => {
    await target?.drop()
  })

  it.skipIf(backendUnavailable(backend))('migrates cleanly with the jwt feature: no migration runs again, the blacklist it holds stays', async () => {
    // The old way: gatehouse's migrations, then JWT's by hand in the table name the docs gave.
    const old = await openDatabase(target.url)
    try {
      await migrate(old.db, authMigrations(old.dialect))
      await migrate(old.db, jwtBlacklistMigrations(old.dialect), 'gatehouse_jwt_migrations')
      const store = new KyselyJwtBlacklistStore({ db: old.db as unknown as Kysely<JwtBlacklistDatabase> })
      expect(await store.blacklist({ jti: 'revoked-before', userId: 1, expiresAt: new Date(Date.now() + 3_600_000) })).toBe(true)
    } finally {
      await old.close()
    }
    const before = await openDatabase(target.url)
    const trackedBefore = {
      core: await recorded(before.db as Kysely<unknown>, 'gatehouse_migrations'),
      jwt: await recorded(before.db as Kysely<unknown>, 'gatehouse_jwt_migrations'),
    }
    await before.close()

    const tokens = jwt({ signingKey: KEY })
    const auth = await createGatehouse({ database: target.url, users: { scrypt: SCRYPT }, features: [tokens] })
    try {
      const db = auth.db as Kysely<unknown>
      expect(await recorded(db, 'gatehouse_migrations')).toEqual(trackedBefore.core)
      expect(await recorded(db, 'gatehouse_jwt_migrations')).toEqual(trackedBefore.jwt)
      expect(trackedBefore.jwt).toEqual(['0001_jwt_tokens', '0002_jwt_tokens_created_at'])
      expect(await auth.feature(tokens).blacklist?.isBlacklisted('revoked-before')).toBe(true)
    } finally {
      await auth.close()
    }
  })
})

describe('createGatehouse with jwt() and admin() on SQLite', () => {
  let target: TestDatabase
  let auth: Gatehouse
  let http: { server: Server; url: string }
  const tokens = jwt({ signingKey: KEY })

  beforeAll(async () => {
    target = freshSqlite()
    auth = await createGatehouse({
      database: target.url,
      users: { scrypt: SCRYPT },
      api: { allowedHosts: ['127.0.0.1'] },
      features: [tokens, admin({ siteTitle: 'Feature test admin' })],
    })
    await auth.users.create({ username: 'alice', password: 'alice-pass-1', isStaff: true })
    const me = auth.api.view({ permissions: [new IsAuthenticated()], handlers: { GET: async (ctx) => jsonResponse(200, { username: ctx.user.username }) } })
    http = await listen(router([...auth.routes, ...auth.pages, route('/me/', me)]))
  })
  afterAll(async () => {
    await new Promise((resolve) => http?.server.close(resolve))
    await auth?.close()
    await target?.drop()
  })

  const post = async (path: string, body: unknown): Promise<{ status: number; body: Record<string, string> }> => {
    const response = await fetch(`${http.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: (await response.json()) as Record<string, string> }
  }

  it('migrates the JWT table with the rest, tracked apart from gatehouse_migrations', async () => {
    const db = auth.db as Kysely<unknown>
    expect(await recorded(db, 'gatehouse_jwt_migrations')).toEqual(['0001_jwt_tokens', '0002_jwt_tokens_created_at'])
    expect((await recorded(db, 'gatehouse_migrations')).filter((name) => name.includes('jwt'))).toEqual([])
    expect(await tableExists(db, 'gatehouse_jwt_tokens')).toBe(true)
  })

  it("serves simplejwt's views under /api/token/ on the call's api; the access token authenticates on a view of the default api", async () => {
    const pair = await post('/api/token/', { username: 'alice', password: 'alice-pass-1' })
    expect(pair.status).toBe(200)
    const access = pair.body['access'] ?? ''
    const me = await fetch(`${http.url}/me/`, { headers: { Authorization: `Bearer ${access}` } })
    expect(me.status).toBe(200)
    expect(await me.json()).toEqual({ username: 'alice' })
    expect((await post('/api/token/verify/', { token: access })).status).toBe(200)
    // The blacklist view, on the migrated table: once 200, then the refresh token is refused.
    const refresh = pair.body['refresh'] ?? ''
    expect((await post('/api/token/blacklist/', { refresh })).status).toBe(200)
    expect((await post('/api/token/refresh/', { refresh })).body).toEqual({ detail: 'Token is blacklisted', code: 'token_not_valid' })
  })

  it("the api's settings come from the api option: a host outside allowedHosts is refused", async () => {
    // fetch() sends its own Host: node:http's request sends the one given.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = httpRequest(`${http.url}/me/`, { headers: { Host: 'evil.example' } }, (response) => {
        response.resume()
        resolve(response.statusCode)
      })
      request.on('error', reject).end()
    })
    expect(status).toBe(400)
  })

  it('adds JWTAuthentication to authentication after the Token and Session pair, and the admin pages to pages (not routes)', () => {
    expect(auth.authentication.map((scheme) => scheme.constructor.name)).toEqual(['TokenAuthentication', 'SessionAuthentication', 'JWTAuthentication'])
    expect(auth.feature(tokens).authentication).toBe(auth.authentication[2])
    expect(auth.pages.map((r) => r.path)).toContain('/admin/login/')
    expect(auth.routes.map((r) => r.path).filter((path) => path.startsWith('/admin/'))).toEqual([])
  })

  it('serves the admin pages with the given title, on the API session cookie', async () => {
    const page = await fetch(`${http.url}/admin/login/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Feature test admin')
    expect(page.headers.get('set-cookie')).toContain('csrftoken=')
  })

  it('feature() refuses a feature that is not one of the call\'s', () => {
    expect(() => auth.feature(jwt({ signingKey: KEY }))).toThrow(ConfigurationError)
  })
})

describe('createGatehouse options', () => {
  it('jwt({ authentication: false, blacklist: false }): no scheme in the defaults, no table, no blacklist view', async () => {
    const target = freshSqlite()
    const tokens = jwt({ signingKey: KEY, authentication: false, blacklist: false })
    const auth = await createGatehouse({ database: target.url, features: [tokens] })
    try {
      expect(auth.authentication).toHaveLength(2)
      expect(auth.feature(tokens).authentication).toBeInstanceOf(JWTAuthentication)
      expect(auth.feature(tokens).blacklist).toBeUndefined()
      expect(await tableExists(auth.db as Kysely<unknown>, 'gatehouse_jwt_tokens')).toBe(false)
      expect(auth.routes.map((r) => r.path)).toEqual(['/api/token/', '/api/token/refresh/', '/api/token/verify/'])
    } finally {
      await auth.close()
      await target.drop()
    }
  })

  it('migrate: false runs no feature migration either', async () => {
    const target = freshSqlite()
    const auth = await createGatehouse({ database: target.url, migrate: false, features: [jwt({ signingKey: KEY })] })
    try {
      expect(await tableExists(auth.db as Kysely<unknown>, 'gatehouse_jwt_tokens')).toBe(false)
      expect(await tableExists(auth.db as Kysely<unknown>, 'gatehouse_jwt_migrations')).toBe(false)
    } finally {
      await auth.close()
      await target.drop()
    }
  })

  it('the api option as a function of the stores: a throttle on the call\'s throttle store', async () => {
    const target = freshSqlite()
    const auth = await createGatehouse({ database: target.url, api: ({ throttleStore }) => ({ throttles: [new AnonRateThrottle({ store: throttleStore, rate: '1/min' })] }) })
    const hello = auth.api.view({ handlers: { GET: async () => jsonResponse(200, { hello: true }) } })
    const http = await listen(router([route('/hello/', hello)]))
    try {
      expect((await fetch(`${http.url}/hello/`)).status).toBe(200)
      expect((await fetch(`${http.url}/hello/`)).status).toBe(429)
    } finally {
      await new Promise((resolve) => http.server.close(resolve))
      await auth.close()
      await target.drop()
    }
  })

  it('oauth2(): its scheme joins authentication unless authentication: false; no table, no route', async () => {
    const target = freshSqlite()
    const provider = oauth2({ issuer: 'https://id.example.com/', audience: 'api', user: { claim: 'email' } })
    const hidden = oauth2({ issuer: 'https://other.example.com/', audience: 'api', authentication: false })
    const auth = await createGatehouse({ database: target.url, features: [provider, { ...hidden, name: 'oauth2-hidden' }] })
    try {
      expect(auth.feature(provider).authentication).toBeInstanceOf(OAuth2Authentication)
      expect(auth.authentication).toEqual([auth.schemes.token, auth.schemes.session, auth.feature(provider).authentication])
      expect(auth.routes).toEqual([])
    } finally {
      await auth.close()
      await target.drop()
    }
  })

  it('refuses two features of one name, and a bad JWT setting, before any database is opened', async () => {
    // A database URL that cannot be opened: the refusal must come first.
    const nowhere = 'sqlite:/nonexistent-dir-for-gatehouse/x.sqlite3'
    await expect(createGatehouse({ database: nowhere, features: [admin(), admin()] })).rejects.toThrow(/two features are named "admin"/)
    expect(() => jwt({ signingKey: 'short' })).toThrow(ConfigurationError)
    expect(() => jwt({ signingKey: KEY, prefix: 'api/token' })).toThrow(/"prefix" must be a path/)
  })
})

describe('the setup entry, bundled', () => {
  it('holds no JWT, OAuth 2.0 or admin code, and no jose, unless the app imports them', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const result = await build({
      absWorkingDir: root,
      entryPoints: ['src/setup.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      packages: 'external',
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs).toContain('src/setup.ts')
    expect(inputs.filter((input) => /^src\/(jwt|oauth2|admin)\//.test(input) || input.includes('jose'))).toEqual([])
  })
})
