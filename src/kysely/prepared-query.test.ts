/**
 * The compiled request path: queries built and compiled by Kysely once, each run binding its
 * values and running on the driver (a kept better-sqlite3 statement, a PostgreSQL named
 * statement), on real SQLite and PostgreSQL.
 */
import { Kysely, sql, type Generated } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, freshSqlite, postgresAvailable, freshPostgres, type TestDatabase } from '../../test/helpers/databases.js'
import { ConfigurationError } from '../core/errors.js'
import { openDatabase, type Database } from './database.js'
import { sqliteDirectDriver, StaleStatementError } from './direct-driver.js'
import { GatehouseSqliteDialect } from './dialects.js'
import { preparePageSource, type OptionalQueryParameters } from './prepared-page-source.js'
import { openSqliteConnection } from './sqlite-connection.js'
import { prepareQuery } from './prepared-query.js'
import { backendUnavailable, unavailable } from '../../test/helpers/requirements.js'

interface Db {
  books: { id: Generated<number>; title: string; author: string; pages: number }
}

async function createBooks(db: Kysely<Db>): Promise<void> {
  await db.schema.createTable('books').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('title', 'text', (c) => c.notNull()).addColumn('author', 'text', (c) => c.notNull()).addColumn('pages', 'integer', (c) => c.notNull()).execute()
  const rows = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, title: `book ${i + 1}`, author: i % 5 === 0 ? 'ann' : 'bob', pages: 100 + i }))
  await db.insertInto('books').values(rows).execute()
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`prepared queries on ${backend.name}`, () => {
    let target: TestDatabase
    let database: Database<Db>

    beforeAll(async () => {
      target = await backend.create()
      database = await openDatabase<Db>(target.url, { poolSize: 1 })
      await createBooks(database.db)
    })
    afterAll(async () => {
      await database?.close()
      await target?.drop()
    })

    it('builds once and binds each run’s values', async () => {
      const { db } = database
      let builds = 0
      const byAuthor = prepareQuery<{ author: string; minPages: number }, { id: number; title: string }>(db, (p) => {
        builds++
        return db.selectFrom('books').select(['id', 'title']).where('author', '=', p.author).where('pages', '>=', p.minPages).orderBy('id')
      })
      expect((await byAuthor.execute({ author: 'ann', minPages: 0 })).map((r) => r.id)).toEqual([1, 6, 11, 16, 21])
      expect((await byAuthor.execute({ author: 'ann', minPages: 110 })).map((r) => r.id)).toEqual([11, 16, 21])
      expect(await byAuthor.executeTakeFirst({ author: 'nobody', minPages: 0 })).toBeUndefined()
      expect(builds).toBe(1)
      expect(byAuthor.sql).not.toMatch(/ann|110/)
    })

    it('a run without a value for a parameter is a ConfigurationError, not a query', async () => {
      const { db } = database
      const q = prepareQuery<{ author: string }, { id: number }>(db, (p) => db.selectFrom('books').select('id').where('author', '=', p.author))
      await expect(q.execute({} as { author: string })).rejects.toThrow(ConfigurationError)
    })

    it('a page source compiles each shape once: with and without its optional filter', async () => {
      const { db } = database
      const shapes: boolean[] = []
      const books = preparePageSource({
        db,
        dialect: database.dialect,
        columns: { id: { ref: 'books.id', kind: 'integer' } },
        orderBy: ['id'],
        query: (p: OptionalQueryParameters<{ author: string }>) => {
          shapes.push(p.author !== undefined)
          const q = db.selectFrom('books').select(['books.id as id', 'books.author as author'])
          return p.author === undefined ? q : q.where('books.author', '=', p.author)
        },
      })
      for (let round = 0; round < 3; round++) {
        const all = books()
        expect(await all.count()).toBe(25)
        expect((await all.slice(20, 10)).map((r) => r.id)).toEqual([21, 22, 23, 24, 25])
        const ann = books({ author: 'ann' })
        expect(await ann.count()).toBe(5)
        expect((await ann.slice(1, 2)).map((r) => r.id)).toEqual([6, 11])
        // An absent or undefined value is the unfiltered shape.
        expect(await books({ author: undefined }).count()).toBe(25)
        const bob = books({ author: 'bob' })
        expect(await bob.count()).toBe(20)
        expect((await bob.all()).every((r) => r.author === 'bob')).toBe(true)
        expect(bob.countKey?.()).not.toBe(ann.countKey?.())
        // Another page size is another page statement; the same one is reused.
        expect((await bob.slice(0, 3)).map((r) => r.id)).toEqual([2, 3, 4])
      }
      expect(shapes).toEqual([false, true])
    })

    it('an ordering filter reorders a prepared source, with its bound values kept', async () => {
      const { db } = database
      const books = preparePageSource({
        db,
        dialect: database.dialect,
        columns: { id: { ref: 'books.id', kind: 'integer' }, pages: { ref: 'books.pages', kind: 'integer' } },
        orderBy: ['id'],
        query: (p: OptionalQueryParameters<{ author: string }>) => {
          const q = db.selectFrom('books').select(['books.id as id', 'books.pages as pages'])
          return p.author === undefined ? q : q.where('books.author', '=', p.author)
        },
      })
      for (let round = 0; round < 2; round++) {
        const ann = books({ author: 'ann' }).orderedBy?.([{ field: 'pages', descending: true }])
        expect((await ann?.slice(0, 3))?.map((r) => r.id)).toEqual([21, 16, 11])
        expect(await ann?.count()).toBe(5)
        expect((await books().orderedBy?.([{ field: 'pages', descending: true }])?.slice(0, 2))?.map((r) => r.id)).toEqual([25, 24])
      }
    })
  })
}

describe('statement reuse on SQLite', () => {
  it('prepares each SQL text once on the connection, whatever the values', async () => {
    const target = freshSqlite()
    // The runtime's own driver (better-sqlite3 on Node 20, bun:sqlite, node:sqlite), as openDatabase picks it.
    const { connection: raw } = await openSqliteConnection(target.url.replace(/^sqlite:(\/\/)?/, ''), { readOnly: false })
    let prepares = 0
    const direct = sqliteDirectDriver({ get inTransaction() { return raw.inTransaction }, prepare: (text) => (prepares++, raw.prepare(text)) })
    const db = new Kysely<Db>({ dialect: new GatehouseSqliteDialect({ database: raw }, direct) })
    try {
      await createBooks(db)
      const q = prepareQuery<{ id: number }, { title: string }>(db, (p) => db.selectFrom('books').select('title').where('id', '=', p.id))
      for (let id = 1; id <= 10; id++) expect(await q.executeTakeFirst({ id })).toEqual({ title: `book ${id}` })
      expect(prepares).toBe(1)
      // Inside a transaction the statement goes through Kysely (its connection mutex), and sees the transaction.
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('books').set({ title: 'changed' }).where('id', '=', 1).execute()
        const inside = prepareQuery<{ id: number }, { title: string }>(trx, (p) => trx.selectFrom('books').select('title').where('id', '=', p.id))
        expect(await inside.executeTakeFirst({ id: 1 })).toEqual({ title: 'changed' })
      })
      expect(prepares).toBe(1)
    } finally {
      await db.destroy()
      await target.drop()
    }
  })

  it('a dropped column is an error naming it, never stale rows', async () => {
    const target = freshSqlite()
    const database = await openDatabase<Db>(target.url)
    try {
      await createBooks(database.db)
      const { db } = database
      const q = prepareQuery<{ id: number }, { title: string; pages: number }>(db, (p) => db.selectFrom('books').select(['title', 'pages']).where('id', '=', p.id))
      expect(await q.executeTakeFirst({ id: 2 })).toEqual({ title: 'book 2', pages: 101 })
      await sql`alter table books drop column pages`.execute(db)
      if (database.sqliteDriver === 'bun:sqlite') {
        // Bun's SQLite is built with double-quoted string literals on (better-sqlite3 and
        // node:sqlite turn them off), and bun:sqlite has no way to turn them off: the quoted
        // name of a missing column reads as a string. Still never the stale value 101.
        expect(await q.executeTakeFirst({ id: 2 })).toEqual({ title: 'book 2', '"pages"': 'pages' })
      } else {
        await expect(q.execute({ id: 2 })).rejects.toThrow(/no such column: "?pages/)
      }
      await sql`alter table books add column pages integer not null default 7`.execute(db)
      expect(await q.executeTakeFirst({ id: 2 })).toEqual({ title: 'book 2', pages: 7 })
    } finally {
      await database.close()
      await target.drop()
    }
  })
})

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()))('statement reuse on PostgreSQL', () => {
  let target: TestDatabase
  let database: Database<Db> | undefined
  beforeAll(async () => {
    target = await freshPostgres()
  })
  afterEach(async () => {
    await database?.close()
    database = undefined
  })
  afterAll(async () => {
    await target?.drop()
  })

  it('runs as one named statement per connection, rebound on each run', async () => {
    database = await openDatabase<Db>(target.url, { poolSize: 1 })
    const { db } = database
    await sql`drop table if exists books`.execute(db)
    await createBooks(db)
    const q = prepareQuery<{ id: number }, { title: string }>(db, (p) => db.selectFrom('books').select('title').where('id', '=', p.id))
    for (let id = 1; id <= 5; id++) expect(await q.executeTakeFirst({ id })).toEqual({ title: `book ${id}` })
    const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements where statement = ${q.sql}`.execute(db)
    expect(rows).toHaveLength(1)
    expect(rows[0]?.name).toMatch(/^gh_[0-9a-f]{24}$/)
  })

  it('a column whose type changed is a StaleStatementError, never stale rows', async () => {
    database = await openDatabase<Db>(target.url, { poolSize: 1 })
    const { db } = database
    await sql`drop table if exists books`.execute(db)
    await createBooks(db)
    const q = prepareQuery<{ id: number }, { pages: number }>(db, (p) => db.selectFrom('books').select('pages').where('id', '=', p.id))
    expect(await q.executeTakeFirst({ id: 3 })).toEqual({ pages: 102 })
    await sql`alter table books alter column pages type text`.execute(db)
    const error = await q.execute({ id: 3 }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StaleStatementError)
    expect((error as Error).message).toMatch(/no longer matches its tables/)
  })
})
