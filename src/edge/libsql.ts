/**
 * `drf-gatehouse/libsql`: gatehouse's Kysely stores on libSQL (Turso, or a `file:` database),
 * through `@libsql/kysely-libsql` (an optional peer: only a project that imports this entry installs it).
 */
import { LibsqlDialect } from '@libsql/kysely-libsql'
import { Kysely } from 'kysely'
import type { Database } from '../kysely/database.js'

/**
 * A libSQL database as a gatehouse {@link Database}: `url` is `libsql://…` (Turso, with its
 * `authToken`), `http(s)://…`, `ws(s)://…` or `file:<path>` (on Node, Bun and Deno).
 * Hand `db` to the Kysely stores and `dialect` (`'sqlite'`) to `authMigrations`.
 *
 * @example
 * const { db, dialect, close } = openLibsql<AuthDatabase>({ url: env.TURSO_URL, authToken: env.TURSO_TOKEN })
 * await migrate(db, authMigrations(dialect))
 */
export function openLibsql<DB>(config: { readonly url: string; readonly authToken?: string }): Database<DB> {
  const db = new Kysely<DB>({ dialect: new LibsqlDialect({ url: config.url, ...(config.authToken === undefined ? {} : { authToken: config.authToken }) }) })
  return { db, dialect: 'sqlite', sqliteDriver: undefined, close: () => db.destroy() }
}
