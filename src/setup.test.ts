/**
 * `createGatehouse`, the composition root, on SQLite alone and on PostgreSQL + Redis: one call
 * migrates and wires the stores, the schemes on them answer over HTTP, and the wiring is real:
 * a change made through `users` reaches the token cache (in one process over the local bus; on
 * another instance through Redis), which a cache without the bus would keep answering stale.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApi, IsAuthenticated, jsonResponse, MinimumLengthValidator, route, type AuthenticationScheme } from './index.js'
import { router } from './adapters/node-http/index.js'
import { KyselySessionStore } from './kysely/kysely-session-store.js'
import { openDatabase } from './kysely/database.js'
import type { AuthDatabase } from './kysely/schema.js'
import { sql, type Generated, type Kysely } from 'kysely'
import { RedisInvalidationBus } from './redis/redis-invalidation-bus.js'
import { RedisSessionStore } from './redis/redis-session-store.js'
import { RedisThrottleStore } from './redis/redis-throttle-store.js'
import { LocalInvalidationBus } from './stores/local-invalidation-bus.js'
import { MemoryThrottleStore } from './throttling/memory-throttle-store.js'
import { createGatehouse, type Gatehouse } from './setup.js'
import { BACKENDS, freshSqlite, type TestDatabase } from '../test/helpers/databases.js'
import { backendUnavailable, unavailable } from '../test/helpers/requirements.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../test/helpers/redis.js'

const SCRYPT = { N: 1024, r: 8, p: 1 }

/** An app's database: its own table beside gatehouse's. */
interface AppDb extends AuthDatabase {
  books: { id: Generated<number>; title: string }
}
/** Far longer than any test: a cached answer that goes away was invalidated, not expired. */
const TTL_MS = 10 * 60_000
const POLL = { timeout: 10_000, interval: 25 }

/** An HTTP server answering `GET /me/` with the schemes `auth` built (or `authentication`), behind `IsAuthenticated`. */
async function serve(auth: Gatehouse, authentication: readonly AuthenticationScheme[] = auth.authentication): Promise<{ server: Server; url: string }> {
  const api = createApi({ authentication, allowedHosts: ['127.0.0.1'] })
  const me = api.view({ permissions: [new IsAuthenticated()], handlers: { GET: async (ctx) => jsonResponse(200, { username: ctx.user.username }) } })
  const server = createServer(router([route('/me/', me)]))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function whoami(url: string, authorization: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/me/`, { headers: { Authorization: authorization } })
  return { status: response.status, body: await response.json() }
}

describe('createGatehouse on SQLite, without Redis', () => {
  let target: TestDatabase
  let auth: Gatehouse
  let http: { server: Server; url: string }

  beforeAll(async () => {
    target = freshSqlite()
    auth = await createGatehouse({ database: target.url, tokenCache: { ttlMs: TTL_MS }, users: { scrypt: SCRYPT } })
    http = await serve(auth)
  })
  afterAll(async () => {
    await new Promise((resolve) => http?.server.close(resolve))
    await auth?.close()
    await target?.drop()
  })

  it('migrates and builds SQL sessions, in-process throttle counters and a local bus', async () => {
    expect(auth.database.dialect).toBe('sqlite')
    expect(auth.sessions).toBeInstanceOf(KyselySessionStore)
    expect(auth.throttleStore).toBeInstanceOf(MemoryThrottleStore)
    expect(auth.invalidation).toBeInstanceOf(LocalInvalidationBus)
    expect(auth.redis).toBeNull()
    const user = await auth.users.create({ username: 'sessions', password: 'pass-word-1' })
    await auth.sessions.save('k'.repeat(32), { userId: user.id, data: {}, expiresAt: new Date(Date.now() + 60_000) })
    expect((await auth.sessions.get('k'.repeat(32)))?.userId).toBe(user.id)
  })

  it('authenticates DRF tokens and named tokens over HTTP, and a deactivation reaches the token cache at once', async () => {
    const user = await auth.users.create({ username: 'alice', password: 'pass-word-1' })
    const { key } = await auth.tokens.getOrCreate(user.id)
    const named = await auth.namedTokens.create(user.id, { name: 'ci' })
    expect(await whoami(http.url, `Token ${key}`)).toEqual({ status: 200, body: { username: 'alice' } })
    expect(await whoami(http.url, `Token ${named.key}`)).toEqual({ status: 200, body: { username: 'alice' } })
    expect(auth.tokenCache?.size).toBeGreaterThan(0)
    await auth.users.setActive(user.id, false)
    // Without the bus handed to the user store the cache would still answer alice for TTL_MS.
    expect(await whoami(http.url, `Token ${key}`)).toEqual({ status: 401, body: { detail: 'User inactive or deleted.' } })
  })

  it("leaves a database it was given open (typed with the app's own tables), and closes one it opened", async () => {
    const own = freshSqlite()
    const database = await openDatabase<AppDb>(own.url)
    try {
      const given = await createGatehouse({ database, users: { scrypt: SCRYPT } })
      // Typed with the app's tables too, without a cast.
      const typed: Kysely<AppDb> = given.db
      await sql`CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL)`.execute(typed)
      await typed.insertInto('books').values({ title: 'Dune' }).execute()
      await given.users.create({ username: 'kept', password: 'pass-word-1' })
      await given.close()
      expect(await database.db.selectFrom('books').select('title').execute()).toEqual([{ title: 'Dune' }])
      // Still usable: close() only closes what createGatehouse opened.
      expect(await database.db.selectFrom('gatehouse_users').select('username').execute()).toEqual([{ username: 'kept' }])
    } finally {
      await database.close()
      await own.drop()
    }
    const opened = await createGatehouse({ database: freshSqlite().url, users: { scrypt: SCRYPT } })
    await opened.close()
    await expect(opened.db.selectFrom('gatehouse_users').selectAll().execute()).rejects.toThrow()
  })

  it("hands passwordValidators to the user store and loginFailures to Basic, counted in the throttle store", async () => {
    const own = freshSqlite()
    const rules = [new MinimumLengthValidator({ minLength: 12 })]
    const guarded = await createGatehouse({ database: own.url, users: { scrypt: SCRYPT, passwordValidators: rules }, loginFailures: '2/min' })
    const basicOnly = await serve(guarded, [guarded.schemes.basic])
    try {
      // What the admin's forms and validatePassword read.
      expect(guarded.users.passwordValidators).toEqual(rules)
      expect(guarded.loginFailures).toBeDefined()
      await guarded.users.create({ username: 'carol', password: 'pass-word-1' })
      const wrong = `Basic ${btoa('carol:wrong')}`
      const statuses = [(await whoami(basicOnly.url, wrong)).status, (await whoami(basicOnly.url, wrong)).status, (await whoami(basicOnly.url, wrong)).status]
      // Two failures allowed a minute: the third guess is throttled, not checked.
      expect(statuses).toEqual([401, 401, 429])
    } finally {
      await new Promise((resolve) => basicOnly.server.close(resolve))
      await guarded.close()
      await own.drop()
    }
  })
})

const postgres = BACKENDS.find((backend) => backend.name === 'postgres')!
describe.skipIf(backendUnavailable(postgres) || unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('createGatehouse on PostgreSQL + Redis, two instances', () => {
  let target: TestDatabase
  let a: Gatehouse
  let b: Gatehouse
  let http: { server: Server; url: string }
  const prefix = uniquePrefix()

  beforeAll(async () => {
    target = await postgres.create()
    const options = { database: target.url, redis: REDIS_URL, redisPrefix: prefix, tokenCache: { ttlMs: TTL_MS }, users: { scrypt: SCRYPT } }
    a = await createGatehouse(options)
    b = await createGatehouse(options)
    http = await serve(b)
  })
  afterAll(async () => {
    await new Promise((resolve) => http?.server.close(resolve))
    await a?.close()
    await b?.close()
    await target?.drop()
    if (REDIS_URL !== undefined) await deletePrefix(REDIS_URL, prefix)
  })

  it('puts sessions, throttle counters and the invalidation bus in Redis under the prefix', async () => {
    expect(a.database.dialect).toBe('postgres')
    expect(a.sessions).toBeInstanceOf(RedisSessionStore)
    expect(a.throttleStore).toBeInstanceOf(RedisThrottleStore)
    expect(a.invalidation).toBeInstanceOf(RedisInvalidationBus)
    const user = await a.users.create({ username: 'shared-session', password: 'pass-word-1' })
    await a.sessions.save('s'.repeat(32), { userId: user.id, data: {}, expiresAt: new Date(Date.now() + 60_000) })
    // B, its own connections, reads the session A wrote: the store is shared, under the prefix.
    expect((await b.sessions.get('s'.repeat(32)))?.userId).toBe(user.id)
    expect(await b.redis?.get(`${prefix}session:${'s'.repeat(32)}`)).not.toBeNull()
    const hits = [await a.throttleStore.hit('k', Date.now(), 60_000, 1), await b.throttleStore.hit('k', Date.now(), 60_000, 1)]
    expect(hits.map((hit) => hit.allowed)).toEqual([true, false])
  })

  it("A's deactivation reaches B's token cache through Redis", async () => {
    await expect.poll(() => (b.invalidation as RedisInvalidationBus).listening, POLL).toBe(true)
    const user = await a.users.create({ username: 'bob', password: 'pass-word-1' })
    const { key } = await a.tokens.getOrCreate(user.id)
    expect(await whoami(http.url, `Token ${key}`)).toEqual({ status: 200, body: { username: 'bob' } })
    expect(b.tokenCache?.size).toBeGreaterThan(0)
    await a.users.setActive(user.id, false)
    await expect.poll(() => whoami(http.url, `Token ${key}`), POLL).toEqual({ status: 401, body: { detail: 'User inactive or deleted.' } })
  })
})
