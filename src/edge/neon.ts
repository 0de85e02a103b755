/**
 * `drf-gatehouse/neon`: gatehouse's Kysely stores on PostgreSQL through Neon's serverless
 * driver (`@neondatabase/serverless`, over WebSocket), an optional peer: only a project that
 * imports this entry installs it.
 */
import { Pool, types } from '@neondatabase/serverless'
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely'
import type { Database } from '../kysely/database.js'

/** PostgreSQL's `int8` (`COUNT(*)`, `bigint` ids): parsed as a number, as `openDatabase` does. */
const INT8 = 20

/** How long `close` waits for the pool's connections to report their end (ms). */
const CLOSE_WAIT_MS = 5_000

/**
 * A PostgreSQL URL as a gatehouse {@link Database} over Neon's WebSocket `Pool`: hand `db` to
 * the Kysely stores and `dialect` (`'postgres'`) to `authMigrations`. On an edge runtime open it
 * per request and `close` it when the response is sent (`ctx.waitUntil(close())`): a WebSocket
 * may not outlive its request there. Neon's `neonConfig` (a proxy, a WebSocket constructor on
 * Node 20) is yours to set before.
 *
 * @example
 * const { db, dialect, close } = openNeon<AuthDatabase>(env.DATABASE_URL)
 */
export function openNeon<DB>(url: string, options: { readonly poolSize?: number } = {}): Database<DB> {
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Per pool rather than Neon's global `types`, so another user of the driver keeps its own parsing.
    types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === INT8 ? (value: string) => Number(value) : types.getTypeParser(oid, format ?? 'text')) },
  })
  // Connections made and not yet ended: the pool's `end()` resolves once it has asked each to end,
  // not once they have, so `close` waits for every `remove` (emitted when a client's end is done).
  let open = 0
  let closing = false
  const whenAllEnded: (() => void)[] = []
  pool.on('connect', () => {
    open++
  })
  pool.on('remove', () => {
    open--
    if (open === 0) for (const resolve of whenAllEnded.splice(0)) resolve()
  })
  // An idle connection's failure is reported on the pool; without a listener it would end the process.
  // While closing, a connection that fails as it ends is not lost, nor will the pool reconnect.
  pool.on('error', (error: Error) => {
    if (closing) return
    console.error(`gatehouse: idle Neon connection lost (${error.message}); the pool will reconnect`)
  })
  // Kysely types `Client#connect` as resolving to the client (it uses it only to cancel a query); Neon's, like pg's, resolves to nothing.
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool as unknown as PostgresPool }) })
  const close = async (): Promise<void> => {
    closing = true
    await db.destroy()
    // So the server has let go of them when close resolves (a DROP DATABASE right after finds none);
    // bounded, so that a socket that never reports its end cannot hang a shutdown.
    if (open > 0) {
      await new Promise<void>((resolve) => {
        whenAllEnded.push(resolve)
        setTimeout(resolve, CLOSE_WAIT_MS).unref?.()
      })
    }
  }
  return { db, dialect: 'postgres', sqliteDriver: undefined, close }
}
