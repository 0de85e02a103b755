// The `drf-gatehouse` command line, spawned as a real process (node on its esbuild bundle) against a fresh database:
// create-token (DRF's drf_create_token), create-user and migrate.
import { runReferenceMain } from '../helpers/cli-process.js'
import type { CommandResult } from '../helpers/run-command.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { startReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

type Run = CommandResult

/** Runs the reference API's `main.ts <args>` with DATABASE_URL set; resolves when it exits. */
function cli(databaseUrl: string, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return runReferenceMain(args, {
    env: { ...process.env, DATABASE_URL: databaseUrl, GATEHOUSE_PASSWORD: '', ...env },
  })
}

/** The key in DRF's `Generated token <key> for user <name>` line. */
function keyOf(run: Run, username: string): string {
  const match = new RegExp(`^Generated token ([0-9a-f]{40}) for user ${username}\\n$`).exec(run.stdout)
  if (match?.[1] === undefined) throw new Error(`unexpected output: ${JSON.stringify(run)}`)
  return match[1]
}

for (const backend of BACKENDS) {
  // Each spawn costs a couple of seconds: PostgreSQL runs the token cases only (the
  // command line's code is the same on both; the stores are tested on both elsewhere).
  const full = backend.name === 'sqlite'
  const itFull = (name: string, fn: () => Promise<void>): void => {
    if (full) it(name, fn)
  }
  describe.skipIf(backendUnavailable(backend))(`gatehouse command line (${backend.name})`, () => {
    let db: TestDatabase

    beforeAll(async () => {
      db = await backend.create()
    })
    afterAll(async () => {
      await db?.drop()
    })

    it('migrate prepares an empty database', async () => {
      const run = await cli(db.url, ['migrate'])
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`migrated (${backend.name})\n`)
    })

    itFull('create-token prints an existing key unchanged', async () => {
      const run = await cli(db.url, ['create-token', 'bob'])
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`Generated token ${BOB_KEY} for user bob\n`)
      expect(run.stderr).toBe('')
    })

    it('create-token creates a missing token once, then prints the same key; -r replaces it', async () => {
      const first = keyOf(await cli(db.url, ['create-token', 'alice']), 'alice')
      expect(first).not.toBe(BOB_KEY)
      expect(keyOf(await cli(db.url, ['create-token', 'alice']), 'alice')).toBe(first)
      const again = keyOf(await cli(db.url, ['create-token', full ? '-r' : '--reset', 'alice']), 'alice')
      expect(again).not.toBe(first)

      // The server sees the same table: the old keys are dead, the new one works.
      const server = await startReference({ ...db, drop: async () => {} })
      try {
        const oldAnswer = await fetch(`${server.baseUrl}/api/schemes/token/`, { headers: { authorization: `Token ${first}` } })
        expect(oldAnswer.status).toBe(401)
        expect(await oldAnswer.json()).toEqual({ detail: 'Invalid token.' })
        const newAnswer = await fetch(`${server.baseUrl}/api/schemes/token/`, { headers: { authorization: `Token ${again}` } })
        expect(await newAnswer.json()).toEqual({ username: 'alice', authenticated: true, auth: again })
      } finally {
        await server.close()
      }
    })

    it('create-token for an unknown user fails with DRF\'s message and exit code 1', async () => {
      const run = await cli(db.url, ['create-token', 'ghost'])
      expect(run.code).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain('gatehouse: Cannot create the Token: user ghost does not exist\n')
    })

    itFull('create-user makes a user who can then get a token and log in', async () => {
      const made = await cli(db.url, ['create-user', 'dave', '--staff'], { GATEHOUSE_PASSWORD: 'dave-pass-5' })
      expect(made.code).toBe(0)
      expect(made.stdout).toMatch(/^Created user dave \(id \d+\)\n$/)
      const key = keyOf(await cli(db.url, ['create-token', 'dave']), 'dave')

      const server = await startReference({ ...db, drop: async () => {} })
      try {
        const staff = await fetch(`${server.baseUrl}/api/staff/`, { headers: { authorization: `Token ${key}` } })
        expect(staff.status).toBe(200)
        const obtained = await fetch(`${server.baseUrl}/api/auth/token/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'dave', password: 'dave-pass-5' }),
        })
        expect(await obtained.json()).toEqual({ token: key })
      } finally {
        await server.close()
      }
    })

    itFull('create-user --password and --inactive: an inactive user cannot obtain a token', async () => {
      const made = await cli(db.url, ['create-user', 'erin', '--password', 'erin-pass-6', '--inactive'])
      expect(made.code).toBe(0)
      const server = await startReference({ ...db, drop: async () => {} })
      try {
        const obtained = await fetch(`${server.baseUrl}/api/auth/token/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'erin', password: 'erin-pass-6' }),
        })
        expect(obtained.status).toBe(400)
        expect(await obtained.json()).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'] })
      } finally {
        await server.close()
      }
    })

    itFull("create-user runs the password validators: GATEHOUSE_PASSWORD=1 is refused with Django's messages and no user is made", async () => {
      const run = await cli(db.url, ['create-user', 'weakling'], { GATEHOUSE_PASSWORD: '1' })
      expect(run.code).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toBe(
        [
          'This password is too short. It must contain at least 8 characters.',
          'This password is too common.',
          'This password is entirely numeric.',
          'gatehouse: user weakling not created: the password validators refused the password (--skip-password-validation stores it anyway)',
          '',
        ].join('\n'),
      )
      const similar = await cli(db.url, ['create-user', 'weakling'], { GATEHOUSE_PASSWORD: 'weakling1' })
      expect(similar.code).toBe(1)
      expect(similar.stderr).toContain('The password is too similar to the username.\n')
      const token = await cli(db.url, ['create-token', 'weakling'])
      expect(token.stderr).toContain('user weakling does not exist')
      // Django's "Bypass password validation and create user anyway?", answered yes for one command.
      const skipped = await cli(db.url, ['create-user', 'weakling', '--skip-password-validation'], { GATEHOUSE_PASSWORD: '1' })
      expect(skipped.code).toBe(0)
      expect(skipped.stdout).toMatch(/^Created user weakling \(id \d+\)\n$/)
    })

    itFull('create-user refuses a duplicate name with a clear error and exit code 1', async () => {
      const run = await cli(db.url, ['create-user', 'bob'], { GATEHOUSE_PASSWORD: 'x' })
      expect(run.code).toBe(1)
      expect(run.stderr).toContain('gatehouse: user bob already exists\n')
    })

    itFull('a missing argument exits non-zero', async () => {
      const missing = await cli(db.url, ['create-token'])
      expect(missing.code).not.toBe(0)
      expect(missing.stderr).toContain("missing required argument 'username'")
    })
  })
}
