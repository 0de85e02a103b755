import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshPostgres, postgresAvailable, type TestDatabase } from '../../test/helpers/databases.js'
import { openDatabase, type Database } from './database.js'
import { unavailable } from '../../test/helpers/requirements.js'

/** The session's prepared statements (pg_prepared_statements is per connection: pool size 1). */
async function prepared(database: Database<unknown>): Promise<{ name: string; statement: string }[]> {
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(database.db)
  return rows
}

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()))('named prepared statements on PostgreSQL', () => {
  let target: TestDatabase
  beforeAll(async () => {
    target = await freshPostgres()
  })
  afterAll(async () => {
    await target?.drop()
  })

  it('prepares each SQL text once per connection, reused with new parameters', async () => {
    const database = await openDatabase<unknown>(target.url, { poolSize: 1 })
    try {
      const twice = [await sql<{ n: number }>`select ${1}::int + 1 as n`.execute(database.db), await sql<{ n: number }>`select ${41}::int + 1 as n`.execute(database.db)]
      expect(twice.map((r) => r.rows[0]?.n)).toEqual([2, 42])
      const names = (await prepared(database)).filter((p) => p.statement.includes('+ 1 as n'))
      expect(names).toHaveLength(1)
      expect(names[0]?.name).toMatch(/^gh_[0-9a-f]{24}$/)
    } finally {
      await database.close()
    }
  })

  it('stops naming past the bound, and 0 turns it off', async () => {
    const bounded = await openDatabase<unknown>(target.url, { poolSize: 1, preparedStatements: 2 })
    try {
      for (let i = 0; i < 5; i++) await sql.raw(`select ${i} as n`).execute(bounded.db)
      // Two names at most, plus the listing statement itself if it was among the first two texts.
      expect((await prepared(bounded)).filter((p) => p.name.startsWith('gh_')).length).toBeLessThanOrEqual(2)
    } finally {
      await bounded.close()
    }
    const off = await openDatabase<unknown>(target.url, { poolSize: 1, preparedStatements: 0 })
    try {
      await sql`select ${1}::int as n`.execute(off.db)
      expect(await prepared(off)).toEqual([])
    } finally {
      await off.close()
    }
  })
})
