// Issue 36 item 6, the command line: `drf-gatehouse create-user` and `changepassword` run the
// password validators (Django 3.2's four by default, with Django's messages), as Django's
// createsuperuser and changepassword run validate_password; `--config`'s passwordValidators
// choose them (`[]`: none), `--skip-password-validation` stores a refused one anyway. Every case
// on SQLite, and changepassword (which reads the stored user) on PostgreSQL too; the command
// line's code is the same on both. The command line runs in this process (`main`, its streams and
// environment given): a refusal is also checked from the real process, spawned, once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { runCli } from '../helpers/cli-process.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import type { CommandResult } from '../helpers/run-command.js'
import { backendUnavailable } from '../helpers/requirements.js'

interface RunOptions {
  readonly password?: string
  readonly stdin?: string
  readonly env?: Record<string, string>
}

/** The command line in this process, with `env` (and the password as GATEHOUSE_PASSWORD) as its whole environment. */
function gatehouse(args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  const env: Record<string, string> = { ...options.env }
  if (options.password !== undefined) env['GATEHOUSE_PASSWORD'] = options.password
  return cliInProcess(args, env, options.stdin ?? '')
}

/** The same, as the real process (`runCli`): the test run's own service addresses left out. */
function spawned(args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'GATEHOUSE_CONFIG', 'GATEHOUSE_PASSWORD']) if (options.env?.[name] === undefined) delete env[name]
  if (options.password !== undefined) env['GATEHOUSE_PASSWORD'] = options.password
  return runCli(args, { env, input: options.stdin ?? '' })
}

const TOO_SHORT = 'This password is too short. It must contain at least 8 characters.'
const TOO_COMMON = 'This password is too common.'
const NUMERIC = 'This password is entirely numeric.'
const SIMILAR = 'The password is too similar to the username.'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`create-user and changepassword run the password validators (${backend.name})`, () => {
    let target: TestDatabase
    let database: Database<AuthDatabase>
    let users: KyselyUserStore
    let dir: string
    const db = (): string[] => ['--database', target.url]
    // Not it.skip: under CI=true a skipped test fails the run. The PostgreSQL half registers fewer tests.
    const sqliteOnly = (name: string, fn: () => Promise<void>): void => {
      if (backend.name === 'sqlite') it(name, fn)
    }

    beforeAll(async () => {
      target = await backend.create()
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-password-rules-'))
      expect(await gatehouse(['migrate', ...db()])).toMatchObject({ code: 0 })
      database = await openDatabase<AuthDatabase>(target.url)
      users = new KyselyUserStore({ db: database.db })
    })
    afterAll(async () => {
      await database?.close()
      await target?.drop()
      rmSync(dir, { recursive: true, force: true })
    })

    sqliteOnly('create-user refuses what Django refuses, with every message, and creates nobody', async () => {
      // The real process: its exit code and stderr.
      const short = await spawned(['create-user', 'carol', ...db()], { password: '1234' })
      expect(short.code).toBe(1)
      expect(short.stdout).toBe('')
      // Django's order: similarity, length, common, numeric.
      expect(short.stderr).toBe(
        `${TOO_SHORT}\n${TOO_COMMON}\n${NUMERIC}\ngatehouse: user carol not created: the password validators refused the password (--skip-password-validation stores it anyway)\n`,
      )
      const similar = await gatehouse(['create-user', 'margaret', '--password-stdin', ...db()], { stdin: 'Margaret!7\n' })
      expect(similar).toMatchObject({ code: 1, stderr: expect.stringMatching(new RegExp(`^${SIMILAR}\ngatehouse: user margaret not created`)) })
      expect(await gatehouse(['create-user', 'carol', ...db()], { password: 'password' })).toMatchObject({ code: 1, stderr: expect.stringMatching(new RegExp(`^${TOO_COMMON}\n`)) })
      expect(await users.findByUsername('carol')).toBeNull()
      expect(await users.findByUsername('margaret')).toBeNull()

      const made = await gatehouse(['create-user', 'carol', ...db()], { password: 'larch-velvet-93' })
      expect(made).toMatchObject({ code: 0, stderr: '' })
      expect(await users.authenticate('carol', 'larch-velvet-93')).toMatchObject({ username: 'carol' })
    })

    it('changepassword refuses a password like the stored username, keeping the old one; a good one is set', async () => {
      expect(await gatehouse(['create-user', 'theodora', ...db()], { password: 'first-lantern-7' })).toMatchObject({ code: 0 })
      const similar = await gatehouse(['changepassword', 'theodora', ...db()], { password: 'Theodora!' })
      expect(similar).toMatchObject({ code: 1, stdout: '' })
      expect(similar.stderr).toBe(`${SIMILAR}\ngatehouse: password not changed for user theodora: the password validators refused the password (--skip-password-validation stores it anyway)\n`)
      expect(await gatehouse(['changepassword', 'theodora', '--password-stdin', ...db()], { stdin: '98765432\n' })).toMatchObject({ code: 1, stderr: expect.stringContaining(NUMERIC) })
      expect(await users.authenticate('theodora', 'first-lantern-7')).not.toBeNull()

      expect(await gatehouse(['changepassword', 'theodora', ...db()], { password: 'second-lantern-8' })).toMatchObject({ code: 0, stdout: 'Password changed successfully for user theodora\n' })
      expect(await users.authenticate('theodora', 'second-lantern-8')).not.toBeNull()
      expect(await users.authenticate('theodora', 'first-lantern-7')).toBeNull()
    })

    sqliteOnly('--skip-password-validation stores a refused password (Django\'s "Bypass password validation")', async () => {
      expect(await gatehouse(['create-user', 'quick', '--skip-password-validation', ...db()], { password: 'q' })).toMatchObject({ code: 0, stderr: '' })
      expect(await users.authenticate('quick', 'q')).not.toBeNull()
      expect(await gatehouse(['changepassword', 'quick', '--skip-password-validation', ...db()], { password: 'quick' })).toMatchObject({ code: 0 })
      expect(await users.authenticate('quick', 'quick')).not.toBeNull()
    })

    sqliteOnly('--config (or GATEHOUSE_CONFIG) chooses the validators: its own list replaces the defaults, [] turns validation off', async () => {
      const twelve = join(dir, 'twelve.mjs')
      writeFileSync(
        twelve,
        `export const passwordValidators = [{
  validate: (password) => ([...password].length >= 12 ? [] : ['Use at least 12 characters.']),
  helpText: () => 'At least 12 characters.',
}, {
  validate: async (password, user) => (password.includes(user.username) ? ['Leave your name out of it.'] : []),
  helpText: () => 'Not your name.',
}]\n`,
      )
      const none = join(dir, 'none.mjs')
      writeFileSync(none, 'export const passwordValidators = []\n')
      const bad = join(dir, 'bad.mjs')
      writeFileSync(bad, "export const passwordValidators = ['min 12']\n")

      // 'password' is no longer refused as common; only the module's rules apply.
      expect(await gatehouse(['create-user', 'ursula', '--config', twelve, ...db()], { password: 'ursula-pass' })).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^Use at least 12 characters\.\nLeave your name out of it\.\ngatehouse: user ursula not created/),
      })
      expect(await gatehouse(['create-user', 'ursula', '--config', twelve, ...db()], { password: 'passwordpassword' })).toMatchObject({ code: 0, stderr: '' })
      expect(await gatehouse(['changepassword', 'ursula', ...db()], { password: 'short-pass1', env: { GATEHOUSE_CONFIG: twelve } })).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^Use at least 12 characters\.\n/),
      })
      expect(await users.authenticate('ursula', 'passwordpassword')).not.toBeNull()

      expect(await gatehouse(['create-user', 'vic', '--config', none, ...db()], { password: 'v' })).toMatchObject({ code: 0, stderr: '' })
      expect(await gatehouse(['changepassword', 'vic', '--config', none, ...db()], { password: '1' })).toMatchObject({ code: 0 })
      expect(await users.authenticate('vic', '1')).not.toBeNull()

      // A mistyped list is an error, never "no rules".
      expect(await gatehouse(['create-user', 'wes', '--config', bad, ...db()], { password: 'w' })).toEqual({
        code: 1,
        stdout: '',
        stderr: `gatehouse: the config file ${bad}: passwordValidators must be an array of validators (objects with validate and helpText methods), or [] for none\n`,
      })
      expect(await users.findByUsername('wes')).toBeNull()
    })
  })
}
