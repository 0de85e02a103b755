// The library's `drf-gatehouse` command line on a user's own database: it touches only
// gatehouse's tables, beside the app's own Kysely migrations, and never seeds anything. On SQLite
// it is spawned as a real process (exit codes, the password from its environment and its stdin);
// on PostgreSQL the same cases run it in this process (`main`, its streams and environment given):
// the command line's code is the same on both, and each spawn costs seconds on a loaded machine.
import { cliInProcess } from '../helpers/cli-in-process.js'
import { runCli } from '../helpers/cli-process.js'
import type { CommandResult } from '../helpers/run-command.js'
import { Kysely, sql } from 'kysely'
import { Migrator, type Migration } from 'kysely/migration'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { backendUnavailable } from '../helpers/requirements.js'


type Run = CommandResult

interface RunOptions {
  env?: Record<string, string>
  stdin?: string
}

/** The real process, with the test run's environment but for DATABASE_URL (and GATEHOUSE_PASSWORD unless given). */
function spawned(args: readonly string[], options: RunOptions = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  delete env['DATABASE_URL']
  if (options.env?.['GATEHOUSE_PASSWORD'] === undefined) delete env['GATEHOUSE_PASSWORD']
  return runCli(args, { env, input: options.stdin ?? '' })
}

/** In this process, `options.env` its whole environment. */
function inProcess(args: readonly string[], options: RunOptions = {}): Promise<Run> {
  return cliInProcess(args, options.env ?? {}, options.stdin ?? '')
}

/** The app's own migration, in Kysely's default migration tables. */
const APP_MIGRATIONS: Record<string, Migration> = {
  app_001_books: {
    up: async (db: Kysely<unknown>) => {
      await db.schema.createTable('books').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'text').execute()
    },
  },
}

async function tableRows(database: Database<AuthDatabase>): Promise<Record<string, number>> {
  const db = database.db as unknown as Kysely<unknown>
  const tables = (await db.introspection.getTables()).map((t) => t.name)
  const rows: Record<string, number> = {}
  for (const table of tables) {
    const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db)
    rows[table] = Number(result.rows[0]?.n ?? 0)
  }
  return rows
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`gatehouse command line on ${backend.name}`, () => {
    const gatehouse = backend.name === 'sqlite' ? spawned : inProcess
    let target: TestDatabase | null = null
    afterEach(async () => {
      await target?.drop()
      target = null
    })

    it('migrate beside the app\'s own Kysely migrations: only gatehouse tables, no rows, and the app\'s Migrator still works', async () => {
      target = await backend.create()
      const database = await openDatabase<AuthDatabase>(target.url)
      try {
        const appMigrator = new Migrator({ db: database.db as unknown as Kysely<unknown>, provider: { getMigrations: async () => APP_MIGRATIONS } })
        expect((await appMigrator.migrateToLatest()).error).toBeUndefined()
        const run = await gatehouse(['migrate', '--database', target.url])
        expect(run).toMatchObject({ code: 0, stderr: '' })
        expect(run.stdout).toContain('up to date')
        const rows = await tableRows(database)
        expect(Object.keys(rows)).toEqual(expect.arrayContaining(['books', 'gatehouse_users', 'gatehouse_tokens', 'gatehouse_sessions']))
        expect(Object.entries(rows).filter(([table, n]) => !table.includes('migration') && n > 0)).toEqual([])
        // The app can go on migrating in its own table.
        expect((await appMigrator.migrateToLatest()).error).toBeUndefined()
        expect((await gatehouse(['migrate', '--database', target.url])).code).toBe(0)
      } finally {
        await database.close()
      }
    })

    it('create-user, changepassword, create-token [-r]: passwords from the environment or stdin, never an argument', async () => {
      target = await backend.create()
      const url = target.url
      expect(await gatehouse(['create-user', 'reader', '--database', url], { env: { GATEHOUSE_PASSWORD: 'first-pass-1' } })).toMatchObject({ code: 0, stderr: '' })
      expect((await gatehouse(['create-user', 'reader', '--database', url], { env: { GATEHOUSE_PASSWORD: 'x' } })).stderr).toBe('gatehouse: user reader already exists\n')
      expect(await gatehouse(['create-user', 'nopass', '--database', url])).toMatchObject({ code: 1, stderr: expect.stringContaining('no password') })
      expect((await gatehouse(['create-user', 'reader', '--password', 'x', '--database', url])).code).not.toBe(0)
      expect(await gatehouse(['changepassword', 'reader', '--password-stdin', '--database', url], { stdin: 'second-pass-2\n' })).toMatchObject({ code: 0 })
      const database = await openDatabase<AuthDatabase>(url)
      try {
        const users = new KyselyUserStore({ db: database.db })
        expect(await users.authenticate('reader', 'first-pass-1')).toBeNull()
        expect((await users.authenticate('reader', 'second-pass-2'))?.username).toBe('reader')
      } finally {
        await database.close()
      }
      const first = await gatehouse(['create-token', 'reader', '--database', url])
      const again = await gatehouse(['create-token', 'reader', '--database', url])
      const reset = await gatehouse(['create-token', '-r', 'reader', '--database', url])
      expect(first.stdout).toMatch(/^Generated token [0-9a-f]{40} for user reader\n$/)
      expect(again.stdout).toBe(first.stdout)
      expect(reset.stdout).not.toBe(first.stdout)
      expect(await gatehouse(['create-token', 'ghost', '--database', url])).toMatchObject({
        code: 1,
        stderr: 'gatehouse: Cannot create the Token: user ghost does not exist\n',
      })
    }, 90_000) // eight CLI runs (processes on SQLite), each hashing at the OWASP scrypt cost: slow on a loaded two-core machine

    it('create-user --superuser and grant/revoke-superuser keep Django’s is_superuser; names are NFKC-normalised (issue 36 items 6, 7)', async () => {
      target = await backend.create()
      const url = target.url
      const env = { GATEHOUSE_PASSWORD: 'boss-pass-1' }
      expect(await gatehouse(['create-user', 'boss', '--superuser', '--database', url], { env })).toMatchObject({ code: 0, stderr: '' })
      expect(await gatehouse(['create-user', 'ｗｏｒｋｅｒ', '--no-password', '--database', url])).toMatchObject({ code: 0, stdout: expect.stringContaining('Created user worker ') })
      expect(await gatehouse(['create-user', 'ｂｏｓｓ', '--no-password', '--database', url])).toMatchObject({ code: 1, stderr: 'gatehouse: user boss already exists\n' })
      expect(await gatehouse(['grant-superuser', 'worker', '--database', url])).toMatchObject({ code: 0, stdout: 'Granted superuser status to user worker\n' })
      const database = await openDatabase<AuthDatabase>(url)
      try {
        const users = new KyselyUserStore({ db: database.db })
        expect(await users.findByUsername('boss')).toMatchObject({ isStaff: true, isSuperuser: true })
        expect(await users.findByUsername('worker')).toMatchObject({ isStaff: false, isSuperuser: true })
        expect(await users.findByUsername('ｗｏｒｋｅｒ')).toBeNull()
        expect(await gatehouse(['revoke-superuser', 'worker', '--database', url])).toMatchObject({ code: 0 })
        expect(await users.findByUsername('worker')).toMatchObject({ isSuperuser: false })
      } finally {
        await database.close()
      }
    }, 90_000)

    it('clear-sessions deletes expired sessions only', async () => {
      target = await backend.create()
      expect((await gatehouse(['migrate', '--database', target.url])).code).toBe(0)
      const database = await openDatabase<AuthDatabase>(target.url)
      try {
        const past = new Date(Date.now() - 60_000).toISOString()
        const future = new Date(Date.now() + 3_600_000).toISOString()
        await database.db
          .insertInto('gatehouse_sessions')
          .values([
            { session_key: 'old', user_id: null, data: '{}', expires_at: past },
            { session_key: 'new', user_id: null, data: '{}', expires_at: future },
          ])
          .execute()
        expect((await gatehouse(['clear-sessions', '--database', target.url])).stdout).toBe('Deleted 1 expired session\n')
        const left = await database.db.selectFrom('gatehouse_sessions').select('session_key').execute()
        expect(left.map((r) => r.session_key)).toEqual(['new'])
      } finally {
        await database.close()
      }
    })
  })
}

describe('gatehouse command line without a database', () => {
  it('says how to name one', async () => {
    expect(await spawned(['migrate'])).toMatchObject({ code: 1, stderr: expect.stringContaining('--database <url> or set DATABASE_URL') })
  })
})
