/**
 * How a command reaches its database: `--database` or `DATABASE_URL`, opened with the
 * command line's timeouts, migrated first, or opened read-only for commands that only read.
 */
import { existsSync } from 'node:fs'
import { redactConfigValue } from '../core/redact.js'
import type { Database } from '../kysely/database.js'
import type { AuthDatabase } from '../kysely/schema.js'
import { CliError, type CliIo } from './cli-io.js'
import type * as SqlLayer from './sql-layer.js'
import type { DatabaseOption } from './store-options.js'

function databaseUrl(options: DatabaseOption, io: CliIo): string {
  const url = options.database ?? io.env['DATABASE_URL']
  if (url === undefined || url === '') {
    throw new CliError('no database: pass --database <url> or set DATABASE_URL (sqlite:<path>, file:<path> or postgres://…)')
  }
  return url
}

/** A command is not a request: bulk commands (import-django, migrate-tokens) get a minute per statement. */
const CLI_TIMEOUTS = { connectTimeoutMs: 10_000, statementTimeoutMs: 60_000 } as const

/** The SQL layer, loaded by the command that opens a database (kysely is an optional peer: see sql-layer.ts). */
export function sqlLayer(): Promise<typeof SqlLayer> {
  return import('./sql-layer.js')
}

/** Opens the database without migrating it (the caller's transaction decides what is written). */
export async function openCommandDatabase(options: DatabaseOption, io: CliIo): Promise<Database<AuthDatabase>> {
  const url = databaseUrl(options, io)
  const { openDatabase } = await sqlLayer()
  return openDatabase<AuthDatabase>(url, CLI_TIMEOUTS)
}

/** Opens the database and applies the library's migrations (its own table), then runs `fn`. */
export async function withDatabase<T>(options: DatabaseOption, io: CliIo, fn: (database: Database<AuthDatabase>) => Promise<T>): Promise<T> {
  const database = await openCommandDatabase(options, io)
  try {
    const { authMigrations, migrate } = await sqlLayer()
    await migrate(database.db, authMigrations(database.dialect))
    return await fn(database)
  } finally {
    await database.close()
  }
}

/**
 * The database opened for reading only (`readOnly`: nothing is created, migrated or
 * written), or `null` when it is a SQLite file that does not exist.
 */
export async function openReadOnly(options: DatabaseOption, io: CliIo): Promise<Database<AuthDatabase> | null> {
  const url = databaseUrl(options, io)
  const { openDatabase, parseDatabaseUrl } = await sqlLayer()
  const target = parseDatabaseUrl(url)
  if (target.dialect === 'sqlite' && (target.path === ':memory:' || !existsSync(target.path))) return null
  return openDatabase<AuthDatabase>(url, { ...CLI_TIMEOUTS, readOnly: true })
}

export async function missingTables(database: Database<AuthDatabase>, tables: readonly string[]): Promise<string[]> {
  const present = new Set((await database.db.introspection.getTables()).map((t) => t.name))
  return tables.filter((t) => !present.has(t))
}

/**
 * For read-only commands: runs `fn` on the database opened read-only, without migrating it;
 * a missing SQLite file or missing gatehouse tables are an error, never created.
 */
export async function withReadOnlyDatabase<T>(
  options: DatabaseOption,
  io: CliIo,
  tables: readonly string[],
  fn: (database: Database<AuthDatabase>) => Promise<T>,
): Promise<T> {
  const database = await openReadOnly(options, io)
  if (database === null) throw new CliError(`no database at ${redactConfigValue(databaseUrl(options, io))}: this command only reads, and creates nothing`)
  try {
    const missing = await missingTables(database, tables)
    if (missing.length > 0) throw new CliError(`gatehouse's tables are not in this database (no ${missing.join(', ')}): run drf-gatehouse migrate first`)
    return await fn(database)
  } finally {
    await database.close()
  }
}
