// import-django on odd Django rows: a real Django's SQLite database (its schema as Django
// made it) filled with arbitrary users and tokens (empty, unusable and foreign hashes, overlong
// or NUL-holding usernames, ids past gatehouse's serial, garbage dates, dangling and odd
// token keys). The import never fails, accounts for every row, never prints a hash, and a
// second run (with --update) changes nothing, on SQLite and PostgreSQL targets.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatImportReport, importDjango, readDjangoDatabase } from '../../src/cli/import-django.js'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { authMigrations, migrate } from '../../src/kysely/migrations.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { createDjangoDatabase, djangoAvailable, dropDjangoTemplates, type DjangoDatabase } from '../helpers/django.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

interface OddUser {
  readonly id: number
  readonly username: string
  readonly password: string
  readonly isActive: number
  readonly isStaff: number
  readonly isSuperuser: number
  readonly dateJoined: string
}

interface OddToken {
  readonly key: string
  readonly user: number
}

/** Django's SQLite datetime text, `YYYY-MM-DD HH:MM:SS.ffffff`. */
const djangoDate = fc
  .date({ min: new Date('1901-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 23)}123`)

const username = fc.oneof(
  fc.string({ unit: 'binary', minLength: 0, maxLength: 12 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 145, maxLength: 160 }),
  fc.constantFrom('alice', 'bob', 'a\u0000b', 'Ａlice', 'x'.repeat(150), '😀'.repeat(150), '\n\u001b[31m'),
)
const password = fc.oneof(
  fc.constantFrom(
    '',
    '!',
    '!unusable0123456789',
    'pbkdf2_sha256$1000$salt$aGFzaA==',
    'pbkdf2_sha256$broken',
    'argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA',
    'bcrypt_sha256$$2b$12$abcdefghijklmnopqrstuv',
    'md5$salt$0123456789abcdef',
    'x'.repeat(300),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
)
const oddUser = fc.record({
  id: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 40)),
  username,
  password,
  isActive: fc.constantFrom(0, 1),
  isStaff: fc.constantFrom(0, 1),
  isSuperuser: fc.constantFrom(0, 1),
  dateJoined: fc.oneof(djangoDate, fc.string({ maxLength: 30 }), fc.constant('2024-02-30 25:61:00')),
})
const oddTokens = fc.uniqueArray(
  fc.record({
    key: fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.string({ unit: 'binary', maxLength: 45 })),
    user: fc.integer({ min: 1, max: 60 }),
  }),
  { selector: (t) => t.user, maxLength: 12 },
)
const oddDjango = fc.record({
  users: fc.uniqueArray(oddUser, { selector: (u) => u.username, maxLength: 12 }).map((users) => {
    // auth_user's id is its primary key: keep the first of equal ids.
    const ids = new Set<number>()
    return users.filter((u) => !ids.has(u.id) && ids.add(u.id) !== undefined)
  }),
  tokens: oddTokens,
})

/** A copy of the real Django database with its users and tokens replaced by `data`. */
function writeOddDjango(template: string, dir: string, run: number, data: { users: readonly OddUser[]; tokens: readonly OddToken[] }): string {
  const file = join(dir, `django-${run}.sqlite3`)
  copyFileSync(template, file)
  const db = new SQLite(file)
  try {
    db.pragma('foreign_keys = OFF') // a token may point at no user
    db.exec('delete from authtoken_token; delete from articles_article; delete from auth_user')
    const insertUser = db.prepare(
      `insert into auth_user (id, password, last_login, is_superuser, username, first_name, last_name, email, is_staff, is_active, date_joined)
       values (?, ?, null, ?, ?, '', '', '', ?, ?, ?)`,
    )
    for (const u of data.users) insertUser.run(u.id, u.password, u.isSuperuser, u.username, u.isStaff, u.isActive, u.dateJoined)
    const keys = new Set<string>()
    const insertToken = db.prepare('insert into authtoken_token (key, created, user_id) values (?, ?, ?)')
    for (const t of data.tokens) {
      if (keys.has(t.key)) continue
      keys.add(t.key)
      insertToken.run(t.key, '2024-01-01 00:00:00.000000', t.user)
    }
  } finally {
    db.close()
  }
  return file
}

describe.skipIf(unavailable('Django (python3-django)', djangoAvailable('sqlite')))('import-django on odd Django rows', () => {
  let django: DjangoDatabase | null = null
  let dir = ''
  beforeAll(async () => {
    django = await createDjangoDatabase('sqlite')
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-odd-django-'))
  }, 60_000)
  afterAll(async () => {
    await django?.drop()
    await dropDjangoTemplates()
    rmSync(dir, { recursive: true, force: true })
  })

  for (const backend of BACKENDS) {
    it.skipIf(backendUnavailable(backend))(`never fails, accounts for every row, prints no hash, and is idempotent (gatehouse on ${backend.name})`, async () => {
      const template = (django?.url ?? '').replace(/^sqlite:/, '')
      const target: TestDatabase = await backend.create()
      const database: Database<AuthDatabase> = await openDatabase<AuthDatabase>(target.url)
      let run = 0
      try {
        await migrate(database.db, authMigrations(database.dialect))
        await fc.assert(
          fc.asyncProperty(oddDjango, async (data) => {
            const source = await readDjangoDatabase(`sqlite:${writeOddDjango(template, dir, run++, data)}`)
            expect(source.users).toHaveLength(data.users.length)
            const first = await importDjango(database, source, { update: true })
            const { created, updated, unchanged, skipped } = first.users
            expect(created + updated + unchanged + skipped).toBe(source.users.length)
            const t = first.tokens
            expect(t.created + t.updated + t.unchanged + t.skipped).toBe(source.tokens?.length)
            const printed = formatImportReport(first).join('\n')
            for (const u of data.users) if (u.password.includes('$')) expect(printed).not.toContain(u.password)
            const second = await importDjango(database, source, { update: true })
            expect({ users: second.users, tokens: second.tokens }).toMatchObject({
              users: { created: 0, updated: 0, skipped },
              tokens: { created: 0, updated: 0 },
            })
          }),
          { numRuns: backend.name === 'sqlite' ? 60 : 25 },
        )
      } finally {
        await database.close()
        await target.drop()
      }
    }, 180_000)
  }
})
