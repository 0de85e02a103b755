import { sql, type Kysely } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'
import { openDatabase, type Database } from './database.js'
import type { Migration } from './migration-runner.js'
import { authMigrations, migrate } from './migrations.js'

/** A migration that creates (and drops) table `name`. */
const table = (name: string): Migration => ({
  up: async (db) => db.schema.createTable(name).addColumn('id', 'integer').execute(),
  down: async (db) => db.schema.dropTable(name).execute(),
})

async function tableNames(db: Kysely<unknown>): Promise<string[]> {
  return (await db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name).sort()
}

async function recorded(db: Kysely<unknown>, tableName = 'gatehouse_migrations'): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from ${sql.table(tableName)} order by name`.execute(db)
  return rows.rows.map((r) => r.name)
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`migrate (gatehouse's own runner, Kysely's table format) on ${backend.name}`, () => {
    let test: TestDatabase
    let database: Database<unknown>
    let db: Kysely<unknown>

    beforeEach(async () => {
      test = await backend.create()
      database = await openDatabase<unknown>(test.url)
      db = database.db
    })
    afterEach(async () => {
      await database?.close()
      await test?.drop()
    })

    it('applies pending migrations in name order, once; a second run finds nothing to do', async () => {
      const order: string[] = []
      const tracked = (name: string): Migration => ({
        up: async (d) => {
          order.push(name)
          await table(name).up(d)
        },
      })
      const first = await migrate(db, { b_two: tracked('b_two'), a_one: tracked('a_one') })
      expect(first.results).toEqual([
        { migrationName: 'a_one', direction: 'Up', status: 'Success' },
        { migrationName: 'b_two', direction: 'Up', status: 'Success' },
      ])
      expect(order).toEqual(['a_one', 'b_two'])
      expect((await migrate(db, { a_one: tracked('a_one'), b_two: tracked('b_two') })).results).toEqual([])
      expect(order).toEqual(['a_one', 'b_two'])
      expect(await recorded(db)).toEqual(['a_one', 'b_two'])
      expect(await tableNames(db)).toEqual(expect.arrayContaining(['a_one', 'b_two', 'gatehouse_migrations', 'gatehouse_migrations_lock']))
    })

    it('continues a history written by Kysely\'s own Migrator (what gatehouse used before), and Kysely reads what it writes', async () => {
      const all = authMigrations(database.dialect)
      const firstTwo = { '0001_auth': all['0001_auth']!, '0002_named_tokens': all['0002_named_tokens']! }
      const kysely = (migrations: Record<string, Migration>): Migrator =>
        new Migrator({ db, provider: { getMigrations: async () => migrations }, migrationTableName: 'gatehouse_migrations', migrationLockTableName: 'gatehouse_migrations_lock' })
      expect((await kysely(firstTwo).migrateToLatest()).error).toBeUndefined()
      expect((await migrate(db, all)).results).toEqual([
        { migrationName: '0003_users_last_login', direction: 'Up', status: 'Success' },
        { migrationName: '0004_users_is_superuser', direction: 'Up', status: 'Success' },
      ])
      expect(await recorded(db)).toEqual(['0001_auth', '0002_named_tokens', '0003_users_last_login', '0004_users_is_superuser'])
      // Kysely's Migrator agrees that everything is applied, in order.
      const seen = await kysely(all).getMigrations()
      expect(seen.map((m) => [m.name, m.executedAt instanceof Date])).toEqual([
        ['0001_auth', true],
        ['0002_named_tokens', true],
        ['0003_users_last_login', true],
        ['0004_users_is_superuser', true],
      ])
      expect((await kysely({ ...all, '0005_more': table('more') }).migrateToLatest()).results).toEqual([
        { migrationName: '0005_more', direction: 'Up', status: 'Success' },
      ])
    })

    it('a failing migration throws with its name and is not recorded; those before it are', async () => {
      const failing: Migration = { up: async () => Promise.reject(new Error('boom')) }
      await expect(migrate(db, { a_ok: table('a_ok'), b_fails: failing, c_never: table('c_never') })).rejects.toThrow('migration b_fails failed: Error: boom')
      const applied = await recorded(db)
      // PostgreSQL runs the pending migrations in one transaction (nothing applied); SQLite has no transactional DDL.
      expect(applied).toEqual(backend.name === 'postgres' ? [] : ['a_ok'])
      expect(await tableNames(db)).not.toContain('c_never')
    })

    it('refuses a history that lost a migration or got one inserted before the last applied', async () => {
      await migrate(db, { a: table('a'), c: table('c') })
      await expect(migrate(db, { c: table('c') })).rejects.toThrow('previously executed migration a is missing')
      await expect(migrate(db, { a: table('a'), b: table('b'), c: table('c') })).rejects.toThrow('expected previously executed migration c to be at index 1 but b')
    })

    // PostgreSQL only: SQLite's one connection serialises migrations by itself.
    if (backend.name === 'postgres') it('two processes migrating at once apply each migration once (the dialect\'s migration lock)', async () => {
      const other = await openDatabase<unknown>(test.url)
      try {
        const slow = (name: string): Migration => ({
          up: async (d) => {
            await sql`select pg_sleep(0.2)`.execute(d)
            await table(name).up(d)
          },
        })
        const migrations = { a: slow('a'), b: slow('b') }
        const [one, two] = await Promise.all([migrate(db, migrations), migrate(other.db, migrations)])
        expect([one.results?.length, two.results?.length].sort()).toEqual([0, 2])
        expect(await recorded(db)).toEqual(['a', 'b'])
      } finally {
        await other.close()
      }
    })

    if (backend.name === 'postgres') it("a migration may run past a request's statement timeout, and leaves the pool's timeout as it was", async () => {
      // Requests wait 400 ms here (the server's timeout 300 ms); the migration runs 1 s.
      const tight = await openDatabase<unknown>(test.url, { poolSize: 1, statementTimeoutMs: 400 })
      try {
        await migrate(tight.db, { slow: { up: async (d) => void (await sql`select pg_sleep(1)`.execute(d)) } })
        expect(await recorded(tight.db)).toEqual(['slow'])
        const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(tight.db)
        expect(shown.rows[0]?.statement_timeout).toBe('300ms')
      } finally {
        await tight.close()
      }
    })
  })
}
