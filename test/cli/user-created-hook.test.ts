// Issue 20 item 3, "a token for every new user": the `onUserCreated` hook of the user store,
// called after the row is committed, reached from the store, `drf-gatehouse create-user --config`
// and `import-django` alike; and `drf-gatehouse create-token --all` (get-or-create for every
// active user, never regenerating), on SQLite and PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { importDjango } from '../../src/cli/import-django.js'
import type { StoredUser } from '../../src/core/user.js'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyTokenStore } from '../../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import { authMigrations, migrate } from '../../src/kysely/migrations.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { UserCreatedHookError } from '../../src/stores/user-created-hook.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { runCli } from '../helpers/cli-process.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import type { CommandResult } from '../helpers/run-command.js'
import { backendUnavailable } from '../helpers/requirements.js'

const FAST = { N: 1024, r: 8, p: 1 }

/**
 * The real process: the config modules' hooks print with console.log, which only a process's
 * own stdout captures.
 */
function spawned(args: readonly string[], env: Record<string, string> = {}): Promise<CommandResult> {
  const full: NodeJS.ProcessEnv = { ...process.env }
  delete full['DATABASE_URL']
  delete full['REDIS_URL']
  delete full['GATEHOUSE_CONFIG']
  return runCli(args, { env: { ...full, ...env } })
}

async function tokenRows(database: Database<AuthDatabase>): Promise<{ user_id: number; key: string }[]> {
  const rows = await database.db.selectFrom('gatehouse_tokens').select(['user_id', 'key']).orderBy('user_id').execute()
  return rows.map((r) => ({ user_id: Number(r.user_id), key: r.key }))
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`onUserCreated and create-token --all on ${backend.name}`, () => {
    let target: TestDatabase | null = null
    const opened: Database<AuthDatabase>[] = []
    const temp: string[] = []
    afterEach(async () => {
      for (const database of opened.splice(0)) await database.close()
      for (const dir of temp.splice(0)) rmSync(dir, { recursive: true, force: true })
      await target?.drop()
      target = null
    })
    const open = async (url: string): Promise<Database<AuthDatabase>> => {
      const database = await openDatabase<AuthDatabase>(url)
      opened.push(database)
      return database
    }

    it('the store calls the hook after the commit (another connection sees the row), and DRF\'s recipe gives every new user a token', async () => {
      target = await backend.create()
      const database = await open(target.url)
      await migrate(database.db, authMigrations(database.dialect))
      // A second connection: it sees only committed rows.
      const other = await open(target.url)
      const seen: { user: StoredUser; committed: boolean }[] = []
      const tokens = new KyselyTokenStore({ db: database.db })
      const users = new KyselyUserStore({
        db: database.db,
        scrypt: FAST,
        onUserCreated: async (user) => {
          const row = await other.db.selectFrom('gatehouse_users').select('username').where('id', '=', Number(user.id)).executeTakeFirst()
          seen.push({ user, committed: row?.username === user.username })
          await tokens.getOrCreate(user.id)
        },
      })
      const ann = await users.create({ username: 'ann', password: 'ann-pass-1' })
      const bob = await users.create({ username: 'bob', password: null, isActive: false })
      expect(seen).toEqual([
        { user: ann, committed: true },
        { user: bob, committed: true },
      ])
      expect((await tokenRows(database)).map((r) => r.user_id)).toEqual([Number(ann.id), Number(bob.id)])
      // A failed create (duplicate name) calls nothing.
      await expect(users.create({ username: 'ann', password: 'x' })).rejects.toThrow()
      expect(seen).toHaveLength(2)
    })

    it('a failing hook: create rejects with UserCreatedHookError naming the user, and the row stays', async () => {
      target = await backend.create()
      const database = await open(target.url)
      await migrate(database.db, authMigrations(database.dialect))
      const users = new KyselyUserStore({ db: database.db, scrypt: FAST, onUserCreated: () => Promise.reject(new Error('mail server down')) })
      const error: unknown = await users.create({ username: 'cy', password: null }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UserCreatedHookError)
      expect((error as UserCreatedHookError).user.username).toBe('cy')
      expect((error as UserCreatedHookError).message).toContain('mail server down')
      expect(await users.findByUsername('cy')).not.toBeNull()
    })

    it('import-django calls the hook once per created user, after the commit, and not in a dry run or for users already there', async () => {
      target = await backend.create()
      const database = await open(target.url)
      await migrate(database.db, authMigrations(database.dialect))
      await new KyselyUserStore({ db: database.db, scrypt: FAST }).create({ username: 'kept', password: null })
      const other = await open(target.url)
      const source = {
        dialect: 'sqlite' as const,
        users: ['kept', 'dee', 'eve'].map((username, i) => ({
          id: 10 + i, ref: String(10 + i), username, password: '', isActive: true, isStaff: false, isSuperuser: false, dateJoined: null,
        })),
        tokens: [],
      }
      const called: string[] = []
      const hook = async (user: StoredUser): Promise<void> => {
        const row = await other.db.selectFrom('gatehouse_users').select('id').where('username', '=', user.username).executeTakeFirst()
        called.push(`${user.username}:${row === undefined ? 'uncommitted' : 'committed'}`)
      }
      const dry = await importDjango(database, source, { dryRun: true, onUserCreated: hook })
      expect(dry.users.created).toBe(2)
      expect(called).toEqual([])
      const report = await importDjango(database, source, { onUserCreated: hook })
      expect(report).toMatchObject({ hookFailures: 0, users: { created: 2 } })
      expect(called.sort()).toEqual(['dee:committed', 'eve:committed'])
      // A failing hook is reported, the import stays committed.
      const failing = await importDjango(database, { ...source, users: [{ ...source.users[1]!, id: 20, ref: '20', username: 'fay' }] }, {
        onUserCreated: () => {
          throw new Error('hook says no')
        },
      })
      expect(failing.hookFailures).toBe(1)
      expect(failing.notes).toContain('onUserCreated failed for user fay: hook says no')
      expect(await new KyselyUserStore({ db: database.db }).findByUsername('fay')).not.toBeNull()
    })

    it('drf-gatehouse create-user --config: the module\'s onUserCreated(user, { db }) runs, once, after the row is committed', async () => {
      target = await backend.create()
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-'))
      temp.push(dir)
      const config = join(dir, 'gatehouse.config.mjs')
      // DRF's recipe without the package (a temp folder cannot resolve it): a token row straight through `db`.
      writeFileSync(
        config,
        `import { createHash, randomBytes } from 'node:crypto'
export async function onUserCreated(user, { db, dialect }) {
  const key = randomBytes(20).toString('hex')
  await db.insertInto('gatehouse_tokens').values({ key, key_digest: createHash('sha256').update(key).digest('hex'), user_id: user.id, created: new Date().toISOString() }).execute()
  console.log('hook ran for ' + user.username + ' on ' + dialect)
}
`,
      )
      const run = await spawned(['create-user', 'gil', '--no-password', '--database', target.url, '--config', config])
      expect(run).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout).toBe(`hook ran for gil on ${backend.name}\nCreated user gil (id 1) with no usable password\n`)
      // GATEHOUSE_CONFIG names it as well.
      expect(await spawned(['create-user', 'hal', '--no-password', '--database', target.url], { GATEHOUSE_CONFIG: config })).toMatchObject({ code: 0 })
      const database = await open(target.url)
      expect((await tokenRows(database)).map((r) => r.user_id)).toEqual([1, 2])
      // A config that cannot load, or whose hook fails: a clear message, exit 1, no stack trace.
      expect(await spawned(['create-user', 'ivy', '--no-password', '--database', target.url, '--config', join(dir, 'missing.mjs')])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^gatehouse: cannot load the config file .*missing\.mjs/),
      })
      writeFileSync(join(dir, 'bad.mjs'), `export function onUserCreated() { throw new Error('no mailbox') }\n`)
      expect(await spawned(['create-user', 'jo', '--no-password', '--database', target.url, '--config', join(dir, 'bad.mjs')])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'gatehouse: user jo was created, but the onUserCreated hook failed: no mailbox\n',
      })
    })

    it('drf-gatehouse import-django --config: the hook runs once per imported user, after the import is committed', async () => {
      target = await backend.create()
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-'))
      temp.push(dir)
      // A Django database as manage.py migrate leaves auth_user (the columns the import reads), two users.
      const django = join(dir, 'django.sqlite3')
      const source = new BetterSqlite(django)
      source.exec('create table auth_user (id integer primary key, username varchar(150) not null unique, password varchar(128) not null, is_active bool not null, is_staff bool not null, is_superuser bool not null, date_joined datetime not null)')
      source.prepare('insert into auth_user values (?, ?, ?, 1, 0, 0, ?)').run(1, 'kim', '', '2024-01-02 03:04:05')
      source.prepare('insert into auth_user values (?, ?, ?, 1, 0, 0, ?)').run(2, 'lee', '', '2024-01-02 03:04:05')
      source.close()
      const config = join(dir, 'gatehouse.config.mjs')
      writeFileSync(config, `export async function onUserCreated(user, { db }) {
  const row = await db.selectFrom('gatehouse_users').select('id').where('username', '=', user.username).executeTakeFirst()
  console.log('hook ' + user.username + (row === undefined ? ' uncommitted' : ' committed'))
}
`)
      const run = await spawned(['import-django', '--from', `sqlite:${django}`, '--database', target.url, '--config', config])
      expect(run).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout.split('\n').filter((line) => line.startsWith('hook '))).toEqual(['hook kim committed', 'hook lee committed'])
      // Again: nobody is created, so no hook runs.
      const again = await spawned(['import-django', '--from', `sqlite:${django}`, '--database', target.url, '--config', config])
      expect(again.stdout).not.toContain('hook ')
      expect(again.stdout).toContain('Users: 0 created')
    })

    it('create-token --all: a token for every active user without one, existing keys untouched, inactive users skipped, a count printed', async () => {
      // Spawned on SQLite; in this process on PostgreSQL (no hook prints here, and the command's code is the same on both).
      const gatehouse = backend.name === 'sqlite' ? spawned : (args: readonly string[]): Promise<CommandResult> => cliInProcess(args)
      target = await backend.create()
      expect((await gatehouse(['migrate', '--database', target.url])).code).toBe(0)
      const database = await open(target.url)
      const users = new KyselyUserStore({ db: database.db, scrypt: FAST })
      const tokens = new KyselyTokenStore({ db: database.db })
      const made: StoredUser[] = []
      // More than one batch of 500, so the walk over batches is exercised.
      for (let i = 0; i < 620; i++) made.push(await users.create({ username: `u${String(i).padStart(4, '0')}`, password: null, isActive: i % 10 !== 9 }))
      const kept = await tokens.getOrCreate(made[0]!.id)
      const inactiveWithToken = await tokens.getOrCreate(made[9]!.id)
      const run = await gatehouse(['create-token', '--all', '--database', target.url])
      expect(run).toEqual({ code: 0, stdout: 'Created 557 tokens; 1 active user already had one\n', stderr: '' })
      const rows = await tokenRows(database)
      expect(rows).toHaveLength(559)
      expect(rows.find((r) => r.user_id === Number(made[0]!.id))?.key).toBe(kept.key)
      expect(rows.find((r) => r.user_id === Number(made[9]!.id))?.key).toBe(inactiveWithToken.key)
      expect(rows.some((r) => r.user_id === Number(made[19]!.id))).toBe(false)
      // Never a key on the output, and a second run changes nothing.
      for (const row of rows) expect(run.stdout).not.toContain(row.key)
      expect((await gatehouse(['create-token', '--all', '--database', target.url])).stdout).toBe('Created 0 tokens; 558 active users already had one\n')
      expect(await tokenRows(database)).toEqual(rows)
      expect(await gatehouse(['create-token', '--all', 'u0001', '--database', target.url])).toMatchObject({ code: 1, stderr: 'gatehouse: create-token --all takes no username\n' })
      expect(await gatehouse(['create-token', '--all', '-r', '--database', target.url])).toMatchObject({ code: 1, stderr: expect.stringContaining('never regenerates') })
      expect(await gatehouse(['create-token', '--database', target.url])).toMatchObject({ code: 1, stderr: 'gatehouse: create-token needs a username (or --all)\n' })
    })
  })
}
