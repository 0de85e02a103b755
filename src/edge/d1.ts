/**
 * `drf-gatehouse/d1`: gatehouse's Kysely stores on Cloudflare D1, through `kysely-d1` (an
 * optional peer: only a project that imports this entry installs it), and `ThrottleCounter`,
 * throttle counts in a Cloudflare Durable Object.
 */
import { Kysely } from 'kysely'
import { D1Dialect, type D1DialectConfig } from 'kysely-d1'
import type { Database } from '../kysely/database.js'

export { ThrottleCounter } from './throttle-counter.js'

/**
 * A D1 binding (`env.DB`) as a gatehouse {@link Database}: hand `db` to the Kysely stores and
 * `dialect` (`'sqlite'`) to `authMigrations`. D1 runs each statement on its own (no
 * transaction spans two), which the stores do not need on SQLite; `migrate` runs without
 * one there too, so run it once at deploy time (or `wrangler d1 migrations`), not per request.
 * `close` does nothing: the binding belongs to the Worker.
 *
 * @example
 * export default {
 *   fetch(request: Request, env: { DB: D1Database }) {
 *     const { db } = openD1<AuthDatabase>(env.DB)
 *     const users = new KyselyUserStore({ db })
 *   },
 * }
 */
export function openD1<DB>(database: D1DialectConfig['database']): Database<DB> {
  const db = new Kysely<DB>({ dialect: new D1Dialect({ database }) })
  return { db, dialect: 'sqlite', sqliteDriver: undefined, close: () => db.destroy() }
}
