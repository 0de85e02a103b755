// The safer token mode's commands, spawned as real processes on SQLite (in-process on PostgreSQL):
// create-named-token (printed once, stored as a digest), list-named-tokens,
// revoke-named-token, and migrate-tokens (DRF keys go on working, idempotent, --keep).
import { sql, type Kysely } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyNamedTokenStore } from '../../src/kysely/kysely-named-token-store.js'
import { KyselyTokenStore } from '../../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import { authMigrations, migrate } from '../../src/kysely/migrations.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { runCli } from '../helpers/cli-process.js'
import type { CommandResult } from '../helpers/run-command.js'
import { backendUnavailable } from '../helpers/requirements.js'


function spawned(args: readonly string[]): Promise<CommandResult> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env['DATABASE_URL']
  delete env['REDIS_URL']
  return runCli(args, { env, input: '' })
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`named-token commands on ${backend.name}`, () => {
    // Spawned on SQLite; in this process on PostgreSQL (the command line's code is the same on both).
    const gatehouse = backend.name === 'sqlite' ? spawned : (args: readonly string[]): Promise<CommandResult> => cliInProcess(args)
    let target: TestDatabase | null = null
    let database: Database<AuthDatabase> | null = null
    afterEach(async () => {
      await database?.close()
      await target?.drop()
      database = null
      target = null
    })

    async function open(): Promise<Database<AuthDatabase>> {
      target = await backend.create()
      database = await openDatabase<AuthDatabase>(target.url)
      await migrate(database.db, authMigrations(database.dialect))
      return database
    }

    it('create-named-token prints the token once; the table has only its digest; list and revoke by id', async () => {
      const { db } = await open()
      const url = target?.url ?? ''
      const bob = await new KyselyUserStore({ db }).create({ username: 'bob', password: null })
      const run = await gatehouse(['create-named-token', 'bob', '--name', 'ci runner', '--expires-in', '3600', '--database', url])
      expect(run).toMatchObject({ code: 0, stderr: '' })
      const key = /Generated named token (gth_[A-Za-z0-9]{40}) for user bob \(id (\d+), name "ci runner", expires \S+\)/.exec(run.stdout)
      expect(key).not.toBeNull()
      const token = key?.[1] ?? ''
      const rows = JSON.stringify((await sql`select * from gatehouse_named_tokens`.execute(db as unknown as Kysely<unknown>)).rows)
      expect(rows).not.toContain(token)
      const found = await new KyselyNamedTokenStore({ db }).findByKey(token)
      expect(found).toMatchObject({ userId: bob.id, name: 'ci runner' })
      expect((found?.expiresAt?.getTime() ?? 0) - (found?.created.getTime() ?? 0)).toBe(3_600_000)

      const listed = await gatehouse(['list-named-tokens', 'bob', '--database', url])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain(`${key?.[2] ?? ''}\t"ci runner"\t${token.slice(0, 10)}…`)
      expect(listed.stdout).not.toContain(token)

      expect(await gatehouse(['revoke-named-token', 'bob', '999', '--database', url])).toMatchObject({ code: 1, stderr: 'gatehouse: user bob has no named token 999\n' })
      expect(await gatehouse(['revoke-named-token', 'bob', key?.[2] ?? '', '--database', url])).toMatchObject({ code: 0, stdout: `Revoked named token ${key?.[2] ?? ''} of user bob\n` })
      expect(await new KyselyNamedTokenStore({ db }).findByKey(token)).toBeNull()
      expect((await gatehouse(['list-named-tokens', 'bob', '--database', url])).stdout).toBe('User bob has no named tokens\n')
      expect(await gatehouse(['create-named-token', 'bob', '--name', 'x', '--expires-in', 'soon', '--database', url])).toMatchObject({
        code: 1,
        stderr: 'gatehouse: --expires-in: A valid integer is required.\n',
      })
      expect(await gatehouse(['create-named-token', 'nobody', '--name', 'x', '--database', url])).toMatchObject({ code: 1, stderr: 'gatehouse: user nobody does not exist\n' })
      await new KyselyNamedTokenStore({ db }).create(bob.id, { name: 'old', expiresAt: new Date(Date.now() - 1000) })
      expect(await gatehouse(['clear-expired-tokens', '--database', url])).toMatchObject({ code: 0, stdout: 'Deleted 1 expired named token\n' })
    }, 150_000) // nine CLI processes (on SQLite): slow on a loaded two-core machine

    it('migrate-tokens moves DRF keys into named tokens: same keys work, DRF rows go, a second run changes nothing', async () => {
      const { db } = await open()
      const url = target?.url ?? ''
      const users = new KyselyUserStore({ db })
      const drf = new KyselyTokenStore({ db })
      const ann = await users.create({ username: 'ann', password: null })
      const ben = await users.create({ username: 'ben', password: null })
      const annKey = (await drf.getOrCreate(ann.id)).key
      const benKey = (await drf.getOrCreate(ben.id)).key

      const kept = await gatehouse(['migrate-tokens', '--keep', '--database', url])
      expect(kept).toMatchObject({ code: 0, stdout: 'Moved 2 DRF tokens into named tokens (DRF rows kept); 0 already there\n' })
      expect(await drf.findByKey(annKey)).not.toBeNull()
      expect(await gatehouse(['migrate-tokens', '--keep', '--database', url])).toMatchObject({ stdout: 'Moved 0 DRF tokens into named tokens (DRF rows kept); 2 already there\n' })

      const moved = await gatehouse(['migrate-tokens', '--database', url])
      expect(moved).toMatchObject({
        code: 0,
        stdout:
          'Moved 0 DRF tokens into named tokens; 2 already there\n' +
          'Now switch the token obtain endpoint (obtainAuthTokenView) to named tokens with namedTokenIssuer, or unmount it: as it is, it stores a new plaintext DRF key for every user it serves\n',
      })
      expect(await drf.findByKey(annKey)).toBeNull()
      const named = new KyselyNamedTokenStore({ db })
      expect(await named.findByKey(annKey)).toMatchObject({ userId: ann.id, name: 'drf' })
      expect(await named.findByKey(benKey)).toMatchObject({ userId: ben.id, name: 'drf' })
      expect(await gatehouse(['migrate-tokens', '--database', url])).toMatchObject({ code: 0, stdout: 'Moved 0 DRF tokens into named tokens; 0 already there\n' })
      expect(await named.list(ann.id)).toHaveLength(1)
      expect(JSON.stringify((await sql`select * from gatehouse_named_tokens`.execute(db as unknown as Kysely<unknown>)).rows)).not.toContain(annKey)

      expect(await gatehouse(['revoke-named-token', 'ann', '--all', '--database', url])).toMatchObject({ code: 0, stdout: 'Revoked 1 named token of user ann\n' })
      expect(await named.findByKey(annKey)).toBeNull()
      expect(await gatehouse(['revoke-named-token', 'ann', '--database', url])).toMatchObject({ code: 1, stderr: 'gatehouse: give a token id or --all (not both)\n' })
    }, 120_000) // seven CLI processes (on SQLite)
  })
}
