/**
 * The SQLite driver `openDatabase` picks on each runtime, and the same answers from each:
 * rows, writes, error codes, read-only opens, transactions and the statement cache. The
 * driver-specific cases run on the runtime that has the driver (Node 20: better-sqlite3; Node
 * 22 and 24: better-sqlite3 and node:sqlite; Bun: bun:sqlite; Deno: node:sqlite); CI runs this
 * file on Node 20 and 24, Bun and Deno.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql, type Generated } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type Database } from './database.js'
import { currentRuntime } from '../core/runtime.js'
import { openSqliteConnection, sqliteDriverCandidates } from './sqlite-connection.js'
import { sqliteCodeName } from './sqlite-error-codes.js'

interface Db {
  people: { id: Generated<number>; name: string; age: number | null }
}

describe('sqliteDriverCandidates', () => {
  it('tries the runtime’s own SQLite, and better-sqlite3 alone on Node 20', () => {
    expect(sqliteDriverCandidates('bun', false)).toEqual(['bun:sqlite'])
    expect(sqliteDriverCandidates('deno', false)).toEqual(['node:sqlite'])
    // Node ≥ 22.5: node:sqlite only without better-sqlite3 (Node 22 warns when it is loaded).
    expect(sqliteDriverCandidates('node', true)).toEqual(['better-sqlite3', 'node:sqlite'])
    expect(sqliteDriverCandidates('node', false)).toEqual(['better-sqlite3'])
  })

  it('names SQLite result codes as better-sqlite3 does', () => {
    expect(sqliteCodeName(5)).toBe('SQLITE_BUSY')
    expect(sqliteCodeName(2067)).toBe('SQLITE_CONSTRAINT_UNIQUE')
    expect(sqliteCodeName(1555)).toBe('SQLITE_CONSTRAINT_PRIMARYKEY')
    // An extended code not in the table falls back to its primary code (the low byte).
    expect(sqliteCodeName(5 | (9 << 8))).toBe('SQLITE_BUSY')
  })
})

/** Each driver this runtime can load: its default first, and on Node ≥ 22.5 node:sqlite, the one openDatabase falls back to. */
const DRIVERS = sqliteDriverCandidates()

describe.each(DRIVERS)(`openDatabase on ${currentRuntime()} with %s`, (driver) => {
  let dir: string
  let database: Database<Db> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  async function open(): Promise<Database<Db>> {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-driver-'))
    database = await openDatabase<Db>(`sqlite:${join(dir, 'db.sqlite3')}`, driver === DRIVERS[0] ? {} : { sqliteDriver: driver })
    await database.db.schema.createTable('people').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text', (c) => c.notNull().unique()).addColumn('age', 'integer').execute()
    return database
  }

  it('loads the runtime’s own driver by default, the one asked for otherwise', async () => {
    const { sqliteDriver } = await open()
    expect(sqliteDriver).toBe(driver)
  })

  it('reads and writes as better-sqlite3 does: plain rows, insert ids, affected counts, RETURNING', async () => {
    const { db } = await open()
    const inserted = await db.insertInto('people').values([{ name: 'ann', age: 30 }, { name: 'bob', age: null }]).executeTakeFirstOrThrow()
    expect(inserted.insertId).toBe(2n)
    expect(inserted.numInsertedOrUpdatedRows).toBe(2n)
    const rows = await db.selectFrom('people').selectAll().orderBy('id').execute()
    expect(rows).toStrictEqual([{ id: 1, name: 'ann', age: 30 }, { id: 2, name: 'bob', age: null }])
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype)
    const updated = await db.updateTable('people').set({ age: 31 }).where('name', '=', 'ann').returning(['id', 'age']).execute()
    expect(updated).toStrictEqual([{ id: 1, age: 31 }])
    const deleted = await db.deleteFrom('people').where('age', 'is', null).executeTakeFirst()
    expect(deleted.numDeletedRows).toBe(1n)
    const { rows: count } = await sql<{ n: number }>`select count(*) as n from people`.execute(db)
    expect(count).toStrictEqual([{ n: 1 }])
  })

  it('names a unique violation SQLITE_CONSTRAINT_UNIQUE, as the unique-conflict checks read it', async () => {
    const { db } = await open()
    await db.insertInto('people').values({ name: 'ann', age: 1 }).execute()
    const error: unknown = await db.insertInto('people').values({ name: 'ann', age: 2 }).execute().then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as { code?: unknown }).code).toBe('SQLITE_CONSTRAINT_UNIQUE')
  })

  it('streams rows (Kysely iterates the statement)', async () => {
    const { db } = await open()
    await db.insertInto('people').values([{ name: 'a', age: 1 }, { name: 'b', age: 2 }, { name: 'c', age: 3 }]).execute()
    const seen: unknown[] = []
    for await (const row of db.selectFrom('people').select('name').orderBy('id').stream()) seen.push(row)
    expect(seen).toStrictEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }])
    // The statement was released at the end of the stream: the same text runs again.
    expect(await db.selectFrom('people').select('name').orderBy('id').execute()).toHaveLength(3)
  })

  it('keeps a transaction’s statements together and rolls back', async () => {
    const { db } = await open()
    await db.insertInto('people').values({ name: 'ann', age: 1 }).execute()
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('people').set({ age: 99 }).execute()
        expect((await trx.selectFrom('people').select('age').executeTakeFirstOrThrow()).age).toBe(99)
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect((await db.selectFrom('people').select('age').executeTakeFirstOrThrow()).age).toBe(1)
  })

  it('opens read-only: reads, refuses writes, and never creates a missing file', async () => {
    const writable = await open()
    await writable.db.insertInto('people').values({ name: 'ann', age: 1 }).execute()
    await writable.close()
    database = undefined
    const path = join(dir, 'db.sqlite3')
    const reader = await openDatabase<Db>(`sqlite:${path}`, { readOnly: true })
    try {
      expect(await reader.db.selectFrom('people').select('name').execute()).toEqual([{ name: 'ann' }])
      const error: unknown = await reader.db.insertInto('people').values({ name: 'bob', age: 2 }).execute().then(() => null, (e: unknown) => e)
      expect((error as { code?: unknown } | null)?.code).toMatch(/^SQLITE_READONLY/)
    } finally {
      await reader.close()
    }
    await expect(openDatabase(`sqlite:${join(dir, 'missing.sqlite3')}`, { readOnly: true })).rejects.toThrow(/unable to open|cannot open|SQLITE_CANTOPEN/i)
    expect(existsSync(join(dir, 'missing.sqlite3'))).toBe(false)
  })

  it('turns on WAL, foreign keys and the busy timeout', async () => {
    const { db } = await open()
    const pragma = async (name: string): Promise<unknown> => Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db)).rows[0] ?? {})[0]
    expect(await pragma('journal_mode')).toBe('wal')
    expect(await pragma('foreign_keys')).toBe(1)
    expect(await pragma('busy_timeout')).toBe(5000)
  })
})

describe('openSqliteConnection with a driver this runtime lacks', () => {
  it('is a ConfigurationError naming the driver, not a crash', async () => {
    // Bun refuses the better-sqlite3 addon; Node and Deno have no bun:sqlite.
    const missing = currentRuntime() === 'bun' ? 'better-sqlite3' : 'bun:sqlite'
    await expect(openSqliteConnection(':memory:', { readOnly: false }, missing)).rejects.toMatchObject({ code: 'ERR_SQLITE_DRIVER' })
  })
})
