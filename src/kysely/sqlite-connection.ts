/**
 * The SQLite connection `openDatabase` hands to Kysely, the statement cache and the direct
 * driver: better-sqlite3's shape, which Kysely's `SqliteDialect` expects. better-sqlite3
 * has it natively; node:sqlite and bun:sqlite get a thin adapter each, loaded only on the
 * runtime that has that module, so Bun and Deno never try to load the native addon.
 */
import { ConfigurationError } from '../core/errors.js'
import { currentRuntime } from '../core/runtime.js'
import type { SqliteConnection, SqliteOpenOptions } from './sqlite-connection-shape.js'

/** The SQLite drivers `openDatabase` can use. */
export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite' | 'bun:sqlite'

/** Whether Node's version has a usable `node:sqlite` (22.5 and later; older ones lack the module). */
function nodeHasSqlite(): boolean {
  const [major = 0, minor = 0] = (globalThis.process?.versions?.node ?? '0.0').split('.').map(Number)
  return major > 22 || (major === 22 && minor >= 5)
}

/**
 * The drivers to try, in order, when none is asked for: the runtime's own SQLite on Bun
 * (bun:sqlite) and Deno (node:sqlite); on Node better-sqlite3, the driver the app installed,
 * then node:sqlite (Node ≥ 22.5) when better-sqlite3 is not installed. Not node:sqlite first on
 * Node: up to 24.14 loading it prints Node's "ExperimentalWarning: SQLite is an experimental
 * feature" on stderr, for an app that never asked for it.
 */
export function sqliteDriverCandidates(runtime = currentRuntime(), nodeSqlite = nodeHasSqlite()): readonly SqliteDriverName[] {
  if (runtime === 'bun') return ['bun:sqlite']
  if (runtime === 'deno') return ['node:sqlite']
  return nodeSqlite ? ['better-sqlite3', 'node:sqlite'] : ['better-sqlite3']
}

/** The module at `specifier`, loaded at run time: bundlers and type checkers leave a computed specifier alone. */
function load(specifier: string): Promise<unknown> {
  return import(/* @vite-ignore */ specifier) as Promise<unknown>
}

/** Opens `path` with one driver; `undefined` when this runtime's module lacks what the adapter needs. */
async function openWith(driver: SqliteDriverName, path: string, options: SqliteOpenOptions): Promise<SqliteConnection | undefined> {
  switch (driver) {
    case 'better-sqlite3': {
      const { default: SQLite } = await import('better-sqlite3')
      return options.readOnly ? new SQLite(path, { readonly: true, fileMustExist: true }) : new SQLite(path)
    }
    case 'node:sqlite': {
      const { openNodeSqlite } = await import('./node-sqlite-adapter.js')
      return openNodeSqlite(await load('node:sqlite'), path, options)
    }
    case 'bun:sqlite': {
      const { openBunSqlite } = await import('./bun-sqlite-adapter.js')
      return openBunSqlite(await load('bun:sqlite'), path, options)
    }
  }
}

/**
 * Opens a SQLite file with `driver`, or with the runtime's own driver (see
 * `sqliteDriverCandidates`): the first candidate that loads and has what gatehouse needs.
 * @throws ConfigurationError when no candidate can be used (the last one's error as its cause)
 */
export async function openSqliteConnection(path: string, options: SqliteOpenOptions, driver?: SqliteDriverName): Promise<{ connection: SqliteConnection; driver: SqliteDriverName }> {
  const candidates = driver === undefined ? sqliteDriverCandidates() : [driver]
  let failure: unknown
  for (const candidate of candidates) {
    let connection: SqliteConnection | undefined
    try {
      connection = await openWith(candidate, path, options)
    } catch (error) {
      // A file that can't be opened is the file's fault, not the driver's: say so at once.
      if (isOpenError(error)) throw error
      failure = error
      continue
    }
    if (connection !== undefined) return { connection, driver: candidate }
    failure = new Error(`${candidate} on this runtime lacks what gatehouse needs (StatementSync.columns and DatabaseSync.isTransaction)`)
  }
  const error = new ConfigurationError(
    'ERR_SQLITE_DRIVER',
    `no SQLite driver could be loaded (tried ${candidates.join(', ')}): ${failure instanceof Error ? failure.message : String(failure)}`,
  )
  Object.defineProperty(error, 'cause', { value: failure, configurable: true, writable: true })
  throw error
}

/** Whether `error` is SQLite refusing the file (missing, unreadable, not a database), not a missing module. */
function isOpenError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^SQLITE_(CANTOPEN|NOTADB|PERM|READONLY|IOERR|CORRUPT)/.test(code)
}
