/**
 * PostgreSQL goes away mid-run: requests that need it answer 503 within the configured
 * timeout, requests that do not keep working, and the same process recovers by itself
 * when the server returns, with no token or session lost. Runs on a throwaway server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { isStoreUnavailable } from '../../src/core/store-faults.js'
import { KyselySessionStore } from '../../src/kysely/kysely-session-store.js'
import { KyselyTokenStore } from '../../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import { SESSION_AUTH_HASH_KEY } from '../../src/authentication/session-auth-hash.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { BOB_TOKEN, blockTokenLookup, get, openRetried, TIMEOUT_MS, until200 } from './fault-requests.js'
import { startThrowawayPostgres, throwawayServersAvailable, type ThrowawayServer } from './throwaway-servers.js'
import { unavailable } from '../helpers/requirements.js'

const SESSION_KEY = 'faulttestsession0000000000000000'

describe.skipIf(unavailable('throwaway PostgreSQL and Redis servers', throwawayServersAvailable()))('PostgreSQL down or slow (throwaway server)', () => {
  let server: ThrowawayServer
  let instance: Instance
  let admin: Kysely<AuthDatabase>

  const counts = async (): Promise<{ tokens: number; sessions: number; users: number }> => {
    const row = await sql<{ tokens: number; sessions: number; users: number }>`
      select (select count(*) from gatehouse_tokens)::int as tokens,
             (select count(*) from gatehouse_sessions)::int as sessions,
             (select count(*) from gatehouse_users)::int as users`.execute(admin)
    return row.rows[0] as { tokens: number; sessions: number; users: number }
  }
  /** The test's own connection, for counting rows (closed while the server is down). */
  const openAdmin = (): Promise<Kysely<AuthDatabase>> => openRetried<AuthDatabase>(server.url, 2)
  const token = { Authorization: `Token ${BOB_TOKEN}` }
  const session = { Cookie: `sessionid=${SESSION_KEY}` }

  beforeAll(async () => {
    server = await startThrowawayPostgres()
    instance = await startInstance({
      env: { DATABASE_URL: server.url, REDIS_URL: undefined, GATEHOUSE_DB_TIMEOUT_MS: String(TIMEOUT_MS) },
    })
    admin = await openAdmin()
    // With alice's session auth hash, as the login view writes it (else the session is no login).
    const hash = await new KyselyUserStore({ db: admin }).sessionAuthHash(1)
    await new KyselySessionStore({ db: admin }).save(SESSION_KEY, {
      userId: 1,
      data: { [SESSION_AUTH_HASH_KEY]: hash },
      expiresAt: new Date(Date.now() + 3_600_000),
    })
  }, 60_000)

  afterAll(async () => {
    await admin?.destroy()
    await instance?.stop()
    await server?.destroy()
  }, 60_000)

  it('serves token and session requests while the server is up', async () => {
    expect(await get(instance.baseUrl, '/api/schemes/token/', token)).toMatchObject({ status: 200, body: { username: 'bob' } })
    expect(await get(instance.baseUrl, '/api/schemes/session/', session)).toMatchObject({ status: 200, body: { username: 'alice' } })
  })

  it('stopped: 503 with a detail for requests that need the database, 200 for those that do not, then recovery', async () => {
    const before = await counts()
    await admin.destroy()
    await server.stop()

    const tokenReq = await get(instance.baseUrl, '/api/schemes/token/', token)
    expect(tokenReq.status).toBe(503)
    expect(tokenReq.body).toEqual({ detail: expect.stringMatching(/unavailable/i) })
    expect((await get(instance.baseUrl, '/api/schemes/session/', session)).status).toBe(503)
    expect((await get(instance.baseUrl, '/api/schemes/basic/', { Authorization: `Basic ${btoa('bob:bob-pass-2')}` })).status).toBe(503)
    // A handler's own query (the article list, anonymous) fails the same way.
    expect(await get(instance.baseUrl, '/api/articles/')).toEqual({ status: 503, body: { detail: expect.stringMatching(/unavailable/i) } })
    // No credentials: no scheme touches the database.
    expect(await get(instance.baseUrl, '/api/whoami/')).toEqual({
      status: 200,
      body: { username: null, authenticated: false, auth: null },
    })

    await server.start()
    await until200(instance.baseUrl, '/api/schemes/token/', token)
    expect(await get(instance.baseUrl, '/api/schemes/session/', session)).toMatchObject({ status: 200, body: { username: 'alice' } })
    expect(instance.child.exitCode).toBeNull()
    // The pool's idle connections died with the server: the listener noted it, nothing crashed.
    expect(instance.output()).toMatch(/idle PostgreSQL connection lost/)

    admin = await openAdmin()
    expect(await counts()).toEqual(before)
  }, 60_000)

  it('under steady traffic across a stop and start, every answer is 200 or 503: never a 500, a hang or a crash', async () => {
    let running = true
    const statuses = new Map<number, number>()
    const worker = async (): Promise<void> => {
      while (running) {
        const { status } = await get(instance.baseUrl, '/api/schemes/token/', token)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    const workers = [worker(), worker(), worker(), worker()]
    const seen = (status: number): Promise<void> =>
      (async () => {
        const deadline = Date.now() + 20_000
        while (!statuses.has(status)) {
          if (Date.now() > deadline) throw new Error(`never saw ${status}`)
          await new Promise((ok) => setTimeout(ok, 20))
        }
      })()
    try {
      await seen(200)
      await admin.destroy()
      await server.stop()
      await seen(503)
      const before503 = statuses.get(503) ?? 0
      await server.start()
      // Recovery: 200s again after the 503s.
      const okBefore = statuses.get(200) ?? 0
      const deadline = Date.now() + 20_000
      while ((statuses.get(200) ?? 0) <= okBefore + 20) {
        if (Date.now() > deadline) throw new Error('no recovery under traffic')
        await new Promise((ok) => setTimeout(ok, 20))
      }
      expect(before503).toBeGreaterThan(0)
    } finally {
      running = false
      await Promise.all(workers)
      admin = await openAdmin()
    }
    expect([...statuses.keys()].sort()).toEqual([200, 503])
    expect(instance.child.exitCode).toBeNull()
  }, 60_000)

  it('frozen (accepts, never answers): 503 within the timeout, then recovery when it thaws', async () => {
    const before = await counts()
    await server.freeze()
    try {
      const tokenReq = await get(instance.baseUrl, '/api/schemes/token/', token)
      expect(tokenReq.status).toBe(503)
      expect(tokenReq.body).toEqual({ detail: expect.stringMatching(/unavailable/i) })
      expect((await get(instance.baseUrl, '/api/whoami/')).status).toBe(200)
    } finally {
      await server.thaw()
    }
    await until200(instance.baseUrl, '/api/schemes/token/', token)
    expect(instance.child.exitCode).toBeNull()
    expect(await counts()).toEqual(before)
  }, 60_000)

  it('a request whose connection is cut mid-query gets 503 and the process lives on', async () => {
    // Lock the tokens table so the token lookup is in flight on a checked-out connection.
    const lock = await blockTokenLookup(server.url)
    const inFlight = get(instance.baseUrl, '/api/schemes/token/', token)
    const backend = await lock.waitingBackend(admin)
    // SIGKILL the backend: its socket closes with no goodbye message, as when a network
    // link or the server host dies. (PostgreSQL then restarts its other processes too.)
    await admin.destroy()
    process.kill(backend, 'SIGKILL')
    expect((await inFlight).status).toBe(503)
    await lock.release()
    await until200(instance.baseUrl, '/api/schemes/token/', token)
    admin = await openAdmin()
    expect(instance.child.exitCode).toBeNull()
  }, 60_000)

  it('a token regeneration cut off by the server dying leaves the old token, not none or half', async () => {
    const writer = await openAdmin()
    const attempted: string[] = []
    const tokens = new KyselyTokenStore({
      db: writer,
      generateKey: () => {
        const key = 'f'.repeat(30) + String(attempted.length).padStart(10, '0')
        attempted.push(key)
        return key
      },
    })
    // Hold bob's token row: regenerate's write waits on the row lock, so the server
    // dies while the write is in progress, whatever statements regenerate uses.
    const holder = new pg.Client({ connectionString: server.url })
    holder.on('error', () => undefined)
    await holder.connect()
    await holder.query('BEGIN')
    await holder.query('SELECT key FROM gatehouse_tokens WHERE user_id = 2 FOR UPDATE')
    const regeneration = tokens.regenerate(2).then(
      () => null,
      (error: unknown) => error,
    )
    const deadline = Date.now() + 10_000
    for (;;) {
      const waiting = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and query ~ '^(insert into|delete from|update) "gatehouse_tokens"'`.execute(admin)
      if ((waiting.rows[0]?.n ?? 0) > 0) break
      if (Date.now() > deadline) throw new Error('regenerate never waited on the lock')
      await new Promise((ok) => setTimeout(ok, 50))
    }
    await admin.destroy()
    // A crash, not a fast shutdown: under fast, the holder's backend can end (releasing the
    // lock) before regenerate's does, letting the write commit first on a loaded machine.
    await server.stop('immediate')
    const error = await regeneration
    expect(error).not.toBeNull()
    expect(isStoreUnavailable(error)).toBe(true)
    await holder.end().catch(() => undefined)
    await writer.destroy()

    await server.start()
    admin = await openAdmin()
    const rows = await admin.selectFrom('gatehouse_tokens').select(['key', 'key_digest']).where('user_id', '=', 2).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]?.key).toBe(BOB_TOKEN)
    expect(attempted).toHaveLength(1)
    await until200(instance.baseUrl, '/api/schemes/token/', token)
  }, 60_000)
})
