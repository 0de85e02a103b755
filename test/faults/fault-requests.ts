/**
 * What the PostgreSQL fault tests (direct and through PgBouncer) share: requests to the
 * reference API that count a hang as a failure, polling for recovery, and a test connection
 * of their own that is retried while the server comes back.
 */
import { sql, type Kysely, type QueryExecutorProvider } from 'kysely'
import pg from 'pg'
import { openDatabase } from '../../src/kysely/database.js'

/** The seed's token of bob. */
export const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
/** The store timeout the instance under test runs with (`GATEHOUSE_DB_TIMEOUT_MS`). */
export const TIMEOUT_MS = 1500
/** A request must be answered within the store timeout plus this much slack, or it hangs. */
export const ANSWER_WITHIN_MS = TIMEOUT_MS * 2 + 3000

/** GET `path`, failing (aborted) when no answer comes within `ANSWER_WITHIN_MS`. */
export async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) }
}

/** Polls until `path` answers 200 (the store is back and the pool reconnected); the attempts it took. */
export async function until200(base: string, path: string, headers: Record<string, string>, withinMs = 30_000): Promise<number> {
  const deadline = Date.now() + withinMs
  let attempts = 0
  for (;;) {
    attempts++
    const { status } = await get(base, path, headers).catch(() => ({ status: 0 }))
    if (status === 200) return attempts
    if (Date.now() > deadline) throw new Error(`${path} did not recover (last status ${status})`)
    await new Promise((ok) => setTimeout(ok, 200))
  }
}

/**
 * The test's own connection to `url`, retried: right after a start or a crash-restart the
 * server may still refuse or drop connections.
 */
export async function openRetried<DB>(url: string, poolSize: number): Promise<Kysely<DB>> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const { db } = await openDatabase<DB>(url, { poolSize })
    try {
      await sql`select 1`.execute(db)
      return db
    } catch (error) {
      await db.destroy()
      if (Date.now() > deadline) throw error
      await new Promise((ok) => setTimeout(ok, 200))
    }
  }
}

/**
 * Holds an exclusive lock on the tokens table from a connection of its own, so a token lookup
 * of the instance waits on it, and returns that lookup's backend pid once it waits (read
 * through `db`, a direct connection). `release()` ends the holder.
 */
export async function blockTokenLookup(serverUrl: string): Promise<{ waitingBackend(db: QueryExecutorProvider): Promise<number>; release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: serverUrl })
  holder.on('error', () => undefined)
  await holder.connect()
  await holder.query('BEGIN')
  await holder.query('LOCK TABLE gatehouse_tokens IN ACCESS EXCLUSIVE MODE')
  return {
    async waitingBackend(db) {
      const deadline = Date.now() + 10_000
      for (;;) {
        const waiting = await sql<{ pid: number }>`
          select pid from pg_stat_activity
          where wait_event_type = 'Lock' and query like 'select%gatehouse_tokens%'`.execute(db)
        const backend = waiting.rows[0]?.pid
        if (backend !== undefined) return backend
        if (Date.now() > deadline) throw new Error('the token lookup never waited on the lock')
        await new Promise((ok) => setTimeout(ok, 50))
      }
    },
    release: () => holder.end().catch(() => undefined),
  }
}
