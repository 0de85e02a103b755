import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { freshPostgres, postgresAvailable } from '../../test/helpers/databases.js'
import { unavailable } from '../../test/helpers/requirements.js'
import { openDatabase, parseDatabaseUrl, redactUrl, withStatementCache } from './database.js'
import { authMigrations, migrate } from './migrations.js'
import { openSqliteConnection } from './sqlite-connection.js'
import type { SqliteConnection } from './sqlite-connection-shape.js'

/** An in-memory database on the runtime's own driver (better-sqlite3 on Node 20, bun:sqlite, node:sqlite). */
async function memory(): Promise<SqliteConnection> {
  return (await openSqliteConnection(':memory:', { readOnly: false })).connection
}

describe('withStatementCache', () => {
  it('reuses a prepared statement for the same SQL and gives the same results', async () => {
    const raw = await memory()
    const db = withStatementCache(raw)
    db.prepare('create table t (x integer)').run([])
    db.prepare('insert into t values (?), (?)').run([1, 2])
    const first = db.prepare('select x from t where x > ? order by x')
    const again = db.prepare('select x from t where x > ? order by x')
    expect(again).toBe(first)
    expect(again.all([0])).toEqual([{ x: 1 }, { x: 2 }])
    expect(db.prepare('select x from t where x > ? order by x').all([1])).toEqual([{ x: 2 }])
    db.close()
  })

  it('never hands out a statement that is still iterating', async () => {
    const raw = await memory()
    const db = withStatementCache(raw)
    const sql = 'select value from json_each(?)'
    const iterator = db.prepare(sql).iterate(['[1,2,3]'])
    expect(iterator.next().value).toEqual({ value: 1 })
    const other = db.prepare(sql)
    expect(other.all(['[4]'])).toEqual([{ value: 4 }])
    expect([...iterator]).toEqual([{ value: 2 }, { value: 3 }])
    db.close()
  })

  it('keeps at most `size` statements, dropping the least recently used', async () => {
    const raw = await memory()
    const db = withStatementCache(raw, 2)
    const a = db.prepare('select 1')
    const b = db.prepare('select 2')
    expect(db.prepare('select 1')).toBe(a) // a is now the most recent
    db.prepare('select 3') // evicts b
    expect(db.prepare('select 1')).toBe(a)
    expect(db.prepare('select 2')).not.toBe(b)
    db.close()
  })
})

describe('parseDatabaseUrl', () => {
  it.each([
    [undefined, { dialect: 'sqlite', path: 'gatehouse.sqlite3' }],
    ['', { dialect: 'sqlite', path: 'gatehouse.sqlite3' }],
    ['sqlite:/tmp/x.db', { dialect: 'sqlite', path: '/tmp/x.db' }],
    ['file:data.db', { dialect: 'sqlite', path: 'data.db' }],
    ['postgres://u@h:5432/db', { dialect: 'postgres', url: 'postgres://u@h:5432/db' }],
    ['postgresql://u@h/db', { dialect: 'postgres', url: 'postgresql://u@h/db' }],
  ])('%s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toEqual(expected)
  })

  it('refuses other schemes without echoing a password', () => {
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db')).toThrow(/DATABASE_URL/)
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db')).not.toThrow(/secret/)
  })
})

describe('redactUrl', () => {
  it('masks a password holding / (and the user) up to the last @', () => {
    expect(redactUrl('mysql://root:hunter2/x@db/app')).toBe('mysql://***@db/app')
    expect(redactUrl('postgres://u:p?q#r@db:5432/app')).toBe('postgres://***@db:5432/app')
    expect(redactUrl('postgres://db/app')).toBe('postgres://db/app')
    expect(redactUrl('sqlite:/tmp/x.sqlite3')).toBe('sqlite:/tmp/x.sqlite3')
  })

  it('never shows any part of any user and password (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('mysql', 'postgres', 'postgresql'), fc.string(), fc.string(), (scheme, user, password) => {
        expect(redactUrl(`${scheme}://${user}:${password}@db.example/app`)).toBe(`${scheme}://***@db.example/app`)
      }),
    )
  })

  it('masks a password given as a query parameter (password, sslpassword, any case, percent-encoded name)', () => {
    expect(redactUrl('postgres://app@db/app?password=hunter2')).toBe('postgres://***@db/app?password=***')
    expect(redactUrl('postgres://db/app?sslmode=require&SSLPassword=hunter2&application_name=x')).toBe('postgres://db/app?sslmode=require&SSLPassword=***&application_name=x')
    expect(redactUrl('postgresql://db/app?pass%77ord=hunter2')).toBe('postgresql://db/app?pass%77ord=***')
    // An `@` in the query masks up to it, and the parameter after it still.
    expect(redactUrl('postgres://db/app?user=a@b&password=hunter2')).toBe('postgres://***@b&password=***')
    expect(redactUrl('postgres://db/app?passwords=shown&user=x')).toBe('postgres://db/app?passwords=shown&user=x')
  })

  it('never shows a password given as a query parameter, among others (property)', () => {
    const name = fc.constantFrom('password', 'sslpassword').chain((n) => fc.array(fc.boolean(), { minLength: n.length, maxLength: n.length }).map((upper) => [...n].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')))
    const other = fc.tuple(fc.constantFrom('sslmode', 'user', 'application_name', 'host'), fc.string()).map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    fc.assert(
      fc.property(fc.constantFrom('postgres', 'postgresql'), fc.array(other, { maxLength: 3 }), name, fc.string({ minLength: 1 }), fc.array(other, { maxLength: 3 }), (scheme, before, key, password, after) => {
        const query = [...before, `${key}=${encodeURIComponent(password)}`, ...after].join('&')
        const expected = [...before, `${key}=***`, ...after].join('&')
        expect(redactUrl(`${scheme}://db.example/app?${query}`)).toBe(`${scheme}://db.example/app?${expected}`)
      }),
    )
  })
})

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()))('Database.close() on PostgreSQL', () => {
  /** Server sessions open under `applicationName`; with `untilNone`, polled for up to 3 s (a backend exits just after its client). */
  async function sessionsLeft(serverUrl: string, applicationName: string, untilNone = true): Promise<number> {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      let count = -1
      for (let i = 0; i < 30; i++) {
        const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where application_name = $1', [applicationName])
        count = rows[0]?.n ?? -1
        if (count === 0 || !untilNone) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return count
    } finally {
      await client.end()
    }
  }

  // Kysely's destroy() ends a pool only once a query went through Kysely; migrate() and the
  // stores' prepared statements use the pool directly, so close() used to leave an idle
  // connection holding the process (a CLI `migrate`) open for pg's 10 s idle timeout.
  it.each([
    ['after migrate() alone', async () => {}],
    ['after a query through Kysely too', async (db: import('kysely').Kysely<unknown>) => void (await sql`select 1`.execute(db))],
  ] as const)('ends every connection %s', async (_, more) => {
    const fresh = await freshPostgres({ prefix: 'gh_close_' })
    const applicationName = `gh_close_${randomBytes(4).toString('hex')}`
    try {
      const url = new URL(fresh.url)
      url.searchParams.set('application_name', applicationName)
      const database = await openDatabase<unknown>(url.toString())
      await migrate(database.db, authMigrations('postgres'))
      await more(database.db)
      expect(await sessionsLeft(fresh.url, applicationName, false)).toBeGreaterThan(0)
      await database.close()
      expect(await sessionsLeft(fresh.url, applicationName)).toBe(0)
    } finally {
      await fresh.drop()
    }
  })
})
