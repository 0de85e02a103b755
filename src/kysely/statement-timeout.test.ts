import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeStoreFault, isStoreUnavailable } from '../core/store-faults.js'
import { postgresAvailable } from '../../test/helpers/databases.js'
import { openDatabase, type Database } from './database.js'
import { serverTimeoutFor, withStatementTimeout } from './statement-timeout.js'
import { unavailable } from '../../test/helpers/requirements.js'

describe('serverTimeoutFor and the timeout options', () => {
  it('gives the server 500 ms less than the client, at least three quarters of it', () => {
    expect(serverTimeoutFor(2_000)).toBe(1_500)
    expect(serverTimeoutFor(30_000)).toBe(29_500)
    expect(serverTimeoutFor(600)).toBe(450)
    expect(serverTimeoutFor(2)).toBe(1)
  })

  it('refuses a server timeout at or above the client one, and a non-positive one', async () => {
    const url = 'postgres://nobody@127.0.0.1:1/none'
    await expect(openDatabase(url, { statementTimeoutMs: 2_000, serverStatementTimeoutMs: 2_000 })).rejects.toThrow(/serverStatementTimeoutMs/)
    await expect(openDatabase(url, { connectTimeoutMs: 0 })).rejects.toThrow(/connectTimeoutMs/)
    expect(() => withStatementTimeout(0, async () => 1)).toThrow(/positive integer/)
    await expect(openDatabase(url, { statementTimeoutMs: 1 })).rejects.toThrow(/at least 2/)
  })
})

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()))('PostgreSQL statement timeouts (shared server, pg_sleep only)', () => {
  let database: Database<Record<string, never>>

  beforeAll(async () => {
    // One connection, so every statement below runs on the same session.
    database = await openDatabase(process.env['DATABASE_URL'], { poolSize: 1 })
  })
  afterAll(async () => {
    await database?.close()
  })

  const setting = async (name: string): Promise<string> => {
    const rows = await sql<{ value: string }>`select current_setting(${name}) as value`.execute(database.db)
    return rows.rows[0]?.value ?? ''
  }

  it('connections start with the server giving up first: statement_timeout and idle_in_transaction_session_timeout 1.5 s', async () => {
    expect(await setting('statement_timeout')).toBe('1500ms')
    expect(await setting('idle_in_transaction_session_timeout')).toBe('1500ms')
  })

  it('a statement past the default is cancelled by the server (57014) and answers as a store fault naming the query', async () => {
    const started = performance.now()
    const error = await sql`select pg_sleep(3)`.execute(database.db).then(
      () => null,
      (caught: unknown) => caught,
    )
    const elapsed = performance.now() - started
    expect(isStoreUnavailable(error)).toBe(true)
    expect(describeStoreFault(error)).toEqual({ store: 'postgres', operation: 'query', reason: 'timeout' })
    expect(String((error as { cause?: { message?: string } }).cause?.message)).toMatch(/statement timeout/)
    expect(elapsed).toBeGreaterThanOrEqual(1_400)
    expect(elapsed).toBeLessThan(2_900)
  })

  it('withStatementTimeout raises the limit on both sides for its statements only, then sets it back', async () => {
    const slept = await withStatementTimeout(6_000, () => sql<{ ok: number }>`select 1 as ok from pg_sleep(2.2)`.execute(database.db))
    expect(slept.rows).toEqual([{ ok: 1 }])
    expect(await withStatementTimeout(6_000, () => setting('statement_timeout'))).toBe('5500ms')
    // Outside it, the next statement on the same connection has the pool's limit again.
    expect(await setting('statement_timeout')).toBe('1500ms')
    await expect(sql`select pg_sleep(2.2)`.execute(database.db)).rejects.toSatisfy(isStoreUnavailable)
  })
})
