// What the command line must not write: `import-django --dry-run` and `list-named-tokens`
// create no file, table or row (SQLite and PostgreSQL targets); and `import-django` attaches
// a Django token to a user gatehouse already had only with --update, naming every such user.
// The Django side is a minimal auth_user / authtoken_token SQLite file made here.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/kysely/database.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const ALICE_KEY = 'a11ce0a11ce0a11ce0a11ce0a11ce0a11ce0a11c'
const BOB_KEY = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
const PBKDF2 = 'pbkdf2_sha256$1000$salt$aGFzaA=='

let dir = ''
let djangoUrl = ''

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-writes-'))
  const path = join(dir, 'django.sqlite3')
  const django = new SQLite(path)
  django.exec(`
    create table auth_user (id integer primary key, username text, password text, is_active integer, is_staff integer, is_superuser integer, date_joined text);
    create table authtoken_token (key text primary key, user_id integer, created text);
    insert into auth_user values (1, 'alice', '${PBKDF2}', 1, 0, 0, '2024-01-02 03:04:05.000000');
    insert into auth_user values (2, 'bob', '${PBKDF2}', 1, 0, 0, '2024-01-02 03:04:05.000000');
    insert into authtoken_token values ('${ALICE_KEY}', 1, '2024-01-02 03:04:05.000000');
    insert into authtoken_token values ('${BOB_KEY}', 2, '2024-01-02 03:04:05.000000');
  `)
  django.close()
  djangoUrl = `sqlite:${path}`
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The tables of a PostgreSQL database's public schema. */
async function pgTables(url: string): Promise<string[]> {
  const database = await openDatabase<AuthDatabase>(url)
  try {
    const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(database.db)
    return rows.rows.map((r) => r.name)
  } finally {
    await database.close()
  }
}

describe('read-only commands write nothing', () => {
  it('an empty SQLite file stays empty, a missing one is not created (dry run, list-named-tokens)', async () => {
    const empty = join(dir, 'empty.sqlite3')
    writeFileSync(empty, '')
    const dry = await cliInProcess(['import-django', '--dry-run', '--from', djangoUrl, '--database', `sqlite:${empty}`])
    expect(dry).toMatchObject({ code: 0, stderr: '' })
    expect(dry.stdout).toContain('Users: 2 would be created, 0 would be updated, 0 unchanged, 0 skipped\nTokens: 2 would be created, 0 would be updated, 0 unchanged, 0 skipped\n')
    expect(dry.stdout).toContain("gatehouse's tables are not in --database yet: counted as if they were empty\n")
    expect(dry.stdout).toMatch(/Dry run: nothing was written\n$/)
    expect(statSync(empty).size).toBe(0)
    expect(existsSync(`${empty}-wal`)).toBe(false)

    const listed = await cliInProcess(['list-named-tokens', 'bob', '--database', `sqlite:${empty}`])
    expect(listed).toEqual({ code: 1, stdout: '', stderr: "gatehouse: gatehouse's tables are not in this database (no gatehouse_users, gatehouse_named_tokens): run drf-gatehouse migrate first\n" })
    expect(statSync(empty).size).toBe(0)

    const typo = join(dir, 'typo.sqlite3')
    expect(await cliInProcess(['list-named-tokens', 'bob', '--database', `sqlite:${typo}`])).toEqual({
      code: 1,
      stdout: '',
      stderr: `gatehouse: no database at sqlite:${typo}: this command only reads, and creates nothing\n`,
    })
    expect((await cliInProcess(['import-django', '--dry-run', '--from', djangoUrl, '--database', `sqlite:${typo}`])).code).toBe(0)
    expect(existsSync(typo)).toBe(false)
  })

  describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', BACKENDS[1]?.available === true))('on PostgreSQL', () => {
    let target: TestDatabase
    afterAll(async () => target?.drop())

    it('a dry run and list-named-tokens create no table in an empty database', async () => {
      target = await BACKENDS[1]!.create()
      const dry = await cliInProcess(['import-django', '--dry-run', '--from', djangoUrl, '--database', target.url])
      expect(dry).toMatchObject({ code: 0, stderr: '' })
      expect(dry.stdout).toContain('Users: 2 would be created')
      expect((await cliInProcess(['list-named-tokens', 'bob', '--database', target.url])).code).toBe(1)
      expect(await pgTables(target.url)).toEqual([])
    })
  })
})

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`import-django and users gatehouse already has (${backend.name})`, () => {
    let target: TestDatabase
    afterAll(async () => target?.drop())

    async function tokenOf(username: string): Promise<string | null> {
      const database = await openDatabase<AuthDatabase>(target.url)
      try {
        const row = await database.db
          .selectFrom('gatehouse_tokens')
          .innerJoin('gatehouse_users', 'gatehouse_users.id', 'gatehouse_tokens.user_id')
          .select('gatehouse_tokens.key')
          .where('gatehouse_users.username', '=', username)
          .executeTakeFirst()
        return row?.key ?? null
      } finally {
        await database.close()
      }
    }

    it('a Django token goes to an existing user only with --update, and every such user is named', async () => {
      target = await backend.create()
      expect(await cliInProcess(['create-user', 'bob', '--database', target.url], { GATEHOUSE_PASSWORD: 'gatehouse-bob-1' })).toMatchObject({ code: 0 })

      const dry = await cliInProcess(['import-django', '--dry-run', '--update', '--from', djangoUrl, '--database', target.url])
      expect(dry.stdout).toContain('Django tokens would be attached to 1 user already in gatehouse (their accounts would accept those keys): bob\n')
      expect(await tokenOf('bob')).toBeNull()

      const plain = await cliInProcess(['import-django', '--from', djangoUrl, '--database', target.url])
      expect(plain).toMatchObject({ code: 0, stderr: '' })
      expect(plain.stdout).toContain('Users: 1 created, 0 updated, 1 unchanged, 0 skipped\nTokens: 1 created, 0 updated, 1 unchanged, 0 skipped\n')
      expect(plain.stdout).toContain('1 user already in gatehouse has a Django token that was not attached (--update attaches it): bob\n')
      expect(await tokenOf('bob')).toBeNull()
      expect(await tokenOf('alice')).toBe(ALICE_KEY)

      const update = await cliInProcess(['import-django', '--update', '--from', djangoUrl, '--database', target.url])
      expect(update).toMatchObject({ code: 0 })
      expect(update.stdout).toContain('Tokens: 1 created, 0 updated, 1 unchanged, 0 skipped\n')
      expect(update.stdout).toContain('Django tokens attached to 1 user already in gatehouse (their accounts now accept those keys): bob\n')
      expect(update.stdout).not.toContain(BOB_KEY)
      expect(await tokenOf('bob')).toBe(BOB_KEY)
    })
  })
}
