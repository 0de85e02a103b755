/**
 * PostgreSQL behind PgBouncer in transaction pooling mode (a PgBouncer of the test's own, two
 * server connections for several client connections, so statements of one client connection
 * land on different server connections): with `pgbouncer` (or `?pgbouncer=true`) statements run
 * unnamed and no timeout is sent as a startup parameter; without it, PgBouncer's
 * `prepared statement … already exists` / `does not exist` switches the pool to unnamed
 * statements with one warning, and every statement still answers.
 */
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../../test/helpers/databases.js'
import { pgbouncerAvailable, startPgbouncer, type ThrowawayPgbouncer } from '../../test/helpers/throwaway-pgbouncer.js'
import { unavailable } from '../../test/helpers/requirements.js'
import { openDatabase, pgbouncerFromUrl } from './database.js'
import { withStatementTimeout } from './statement-timeout.js'
import { authMigrations, migrate } from './migrations.js'
import { prepareQuery } from './prepared-query.js'

describe('pgbouncerFromUrl', () => {
  it('reads and removes pgbouncer=true, keeping the rest of the URL', () => {
    expect(pgbouncerFromUrl('postgres://u:p%40ss@db:6432/app?pgbouncer=true&sslmode=require')).toEqual({ url: 'postgres://u:p%40ss@db:6432/app?sslmode=require', pgbouncer: true })
    expect(pgbouncerFromUrl('postgres://db/app?pgbouncer=false')).toEqual({ url: 'postgres://db/app', pgbouncer: false })
    expect(pgbouncerFromUrl('postgres://db/app')).toEqual({ url: 'postgres://db/app', pgbouncer: false })
  })
})

interface Db {
  items: { id: number; name: string }
}

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL=postgres://…)', postgresAvailable()) || unavailable('PgBouncer (/usr/sbin/pgbouncer)', pgbouncerAvailable()))('PostgreSQL through PgBouncer (transaction pooling)', () => {
  let target: TestDatabase
  let strict: ThrowawayPgbouncer
  let lenient: ThrowawayPgbouncer

  beforeAll(async () => {
    target = await freshPostgres()
    const direct = await openDatabase<Db>(target.url)
    await sql`create table items (id int primary key, name text not null)`.execute(direct.db)
    await sql`insert into items select i, 'item ' || i from generate_series(1, 20) i`.execute(direct.db)
    await direct.close()
    // PgBouncer as installed: refuses startup parameters it does not know.
    strict = await startPgbouncer(target.url)
    // Told to drop the timeouts gatehouse sends at connection start (else no connection opens).
    lenient = await startPgbouncer(target.url, { ignoreStartupParameters: ['statement_timeout', 'idle_in_transaction_session_timeout'] })
  }, 60_000)
  afterAll(async () => {
    await strict?.stop()
    await lenient?.stop()
    await target?.drop()
  }, 60_000)

  /** Many concurrent runs of two prepared statements, on more client connections than PgBouncer has server ones. */
  async function exercise(url: string, options: { pgbouncer?: boolean } = {}): Promise<void> {
    // Generous waits: two server connections serve every statement, on a machine that may be busy.
    const database = await openDatabase<Db>(url, { poolSize: 6, connectTimeoutMs: 20_000, statementTimeoutMs: 20_000, ...options })
    try {
      const { db } = database
      const byId = prepareQuery<{ id: number }, { name: string }>(db, (p) => db.selectFrom('items').select('name').where('id', '=', p.id))
      const runs = Array.from({ length: 60 }, async (_, i) => {
        const id = (i % 20) + 1
        const [row, count] = await Promise.all([
          byId.executeTakeFirst({ id }),
          db.selectFrom('items').select((eb) => eb.fn.countAll<number>().as('n')).where('id', '<=', id).executeTakeFirstOrThrow(),
        ])
        return { row, n: Number(count.n), id }
      })
      for (const { row, n, id } of await Promise.all(runs)) {
        expect(row).toEqual({ name: `item ${id}` })
        expect(n).toBe(id)
      }
    } finally {
      await database.close()
    }
  }

  it('pgbouncer=true on the URL: unnamed statements, no startup parameter PgBouncer refuses, no warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await exercise(`${strict.through(target.url)}?pgbouncer=true`)
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
    }
  }, 60_000)

  it('the pgbouncer option does the same', async () => {
    await exercise(strict.through(target.url), { pgbouncer: true })
  }, 60_000)

  it('without it: named statements fail on PgBouncer (42P05 / 26000), the pool falls back to unnamed ones with one warning, and every statement answers', async () => {
    // The server's own statement_timeout is the one the pool sends (19500 for a 20 s wait), so
    // the check of a new connection's timeout passes and only the named statements tell.
    const direct = await openDatabase(target.url, { poolSize: 1 })
    const name = sql.id(new URL(target.url).pathname.slice(1))
    await sql`alter database ${name} set statement_timeout = 19500`.execute(direct.db)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await exercise(lenient.through(target.url))
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/(42P05|26000).*pgbouncer: true.*\?pgbouncer=true/s)
    } finally {
      warn.mockRestore()
      await sql`alter database ${name} reset statement_timeout`.execute(direct.db)
      await direct.close()
    }
  }, 60_000)

  it('without it, on PgBouncer as installed (it refuses the timeout startup parameters): connects without them, one warning, every statement answers', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await exercise(strict.through(target.url))
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/statement_timeout startup parameter.*pgbouncer: true.*\?pgbouncer=true/s)
    } finally {
      warn.mockRestore()
    }
  }, 60_000)

  it('migrations through PgBouncer with pgbouncer=true: applied once, the migration lock never outlives its transaction, concurrent runs wait for each other', async () => {
    const migrated = await freshPostgres()
    const direct = await openDatabase(migrated.url, { poolSize: 1 })
    const url = `${strict.through(migrated.url)}?pgbouncer=true`
    const options = { poolSize: 4, connectTimeoutMs: 20_000, statementTimeoutMs: 20_000 }
    const [first, second, traffic] = await Promise.all([openDatabase(url, options), openDatabase(url, options), openDatabase(url, options)])
    // Other clients' statements keep PgBouncer's two server connections changing hands, as in production.
    let running = true
    const busy = (async () => {
      while (running) await sql`select pg_sleep(0.005)`.execute(traffic.db)
    })()
    const advisoryLocks = async (): Promise<number> =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`.execute(direct.db)).rows[0]?.n ?? -1
    try {
      const applied = await migrate(first.db, authMigrations('postgres'))
      expect(applied.results?.map((r) => r.status)).toEqual(['Success', 'Success', 'Success', 'Success'])
      expect(await advisoryLocks()).toBe(0)
      // Runs of other migration tables, two at a time: each waits for the lock, none hangs on one left behind.
      for (let round = 0; round < 5; round++) {
        const migrations = { [`0001_round_${round}`]: { up: async (db: Parameters<typeof migrate>[0]) => sql`create table ${sql.table(`round_${round}`)} (id int)`.execute(db).then(() => undefined) } }
        const runs = await Promise.all([migrate(first.db, migrations, `history_${round}`), migrate(second.db, migrations, `history_${round}`)])
        // Applied by exactly one of the two; the other found it done.
        expect(runs.flatMap((r) => r.results ?? []).map((r) => r.status)).toEqual(['Success'])
        expect(await advisoryLocks()).toBe(0)
      }
      expect((await sql<{ n: number }>`select count(*)::int as n from gatehouse_migrations`.execute(direct.db)).rows[0]?.n).toBe(4)
    } finally {
      running = false
      await busy.catch(() => undefined)
      await Promise.all([first.close(), second.close(), traffic.close(), direct.close()])
      await migrated.drop()
    }
  }, 120_000)

  it('without pgbouncer=true, through a PgBouncer that drops the timeout startup parameters unseen: another client never sees a statement_timeout of gatehouse\'s, after a normal statement or withStatementTimeout', async () => {
    // One server connection: every client's statements land on it, so a session SET would stay there for all of them.
    const single = await startPgbouncer(target.url, { ignoreStartupParameters: ['statement_timeout', 'idle_in_transaction_session_timeout'], serverConnections: 1 })
    const url = single.through(target.url)
    const database = await openDatabase<Db>(url, { poolSize: 2, connectTimeoutMs: 20_000, statementTimeoutMs: 20_000 })
    const probe = new pg.Client({ connectionString: url })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const seen = async (): Promise<string | undefined> => (await probe.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]?.statement_timeout
    try {
      await probe.connect()
      const { db } = database
      const name = async (): Promise<string | undefined> => (await db.selectFrom('items').select('name').where('id', '=', 1).executeTakeFirst())?.name
      expect(await name()).toBe('item 1')
      expect(await seen()).toBe('0')
      expect(await withStatementTimeout(30_000, name)).toBe('item 1')
      expect(await seen()).toBe('0')
      expect(await name()).toBe('item 1')
      expect(await seen()).toBe('0')
      // And on a transaction, whose statements share one server connection.
      const inTransaction = () => db.transaction().execute(async (trx) => (await trx.selectFrom('items').select('name').where('id', '=', 2).executeTakeFirst())?.name)
      expect(await withStatementTimeout(30_000, inTransaction)).toBe('item 2')
      expect(await seen()).toBe('0')
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/statement_timeout is 0, not the 19500 sent.*pgbouncer: true.*\?pgbouncer=true/s)
    } finally {
      warn.mockRestore()
      await probe.end().catch(() => undefined)
      await database.close()
      await single.stop()
    }
  }, 60_000)

  it('migrations without pgbouncer=true, through a PgBouncer that drops the timeout startup parameters unseen: two apps starting at once both migrate, and no statement_timeout of theirs stays on the server connection', async () => {
    const migrated = await freshPostgres()
    // One server connection: every client's statements land on it, so a session SET would stay there for all of them.
    const single = await startPgbouncer(migrated.url, { ignoreStartupParameters: ['statement_timeout', 'idle_in_transaction_session_timeout'], serverConnections: 1 })
    const url = single.through(migrated.url)
    const options = { poolSize: 2, connectTimeoutMs: 20_000, statementTimeoutMs: 20_000 }
    const [a, b] = await Promise.all([openDatabase(url, options), openDatabase(url, options)])
    const probe = new pg.Client({ connectionString: url })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      // As an app starts: gatehouse's migrations, then its own, each run in a transaction of its own.
      const app = { '0001_books': { up: async (db: Parameters<typeof migrate>[0]) => sql`create table books (id int)`.execute(db).then(() => undefined) } }
      const start = async (db: typeof a.db): Promise<string[]> => [
        ...((await migrate(db, authMigrations('postgres'))).results ?? []).map((r) => r.status),
        ...((await migrate(db, app, 'app_migrations')).results ?? []).map((r) => r.status),
      ]
      const [fromA, fromB] = await Promise.all([start(a.db), start(b.db)])
      // Each migration applied by exactly one of the two.
      expect([...fromA, ...fromB].sort()).toEqual(['Success', 'Success', 'Success', 'Success', 'Success'])
      await probe.connect()
      // What the next client of the pooler gets: the server's default, not the migrations' 10 minutes.
      expect((await probe.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]?.statement_timeout).toBe('0')
    } finally {
      warn.mockRestore()
      await probe.end().catch(() => undefined)
      await Promise.all([a.close(), b.close()])
      await single.stop()
      await migrated.drop()
    }
  }, 120_000)
})
