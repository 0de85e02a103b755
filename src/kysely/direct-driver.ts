import type { MaybePromise } from '../core/maybe-promise.js'
import type { DialectName } from './dialect-name.js'
import type { GuardedPostgresPool } from './postgres-pool.js'
import { scopedStatementTimeout } from './statement-timeout.js'

/**
 * Runs SQL that Kysely compiled once directly on the driver: no query builder, compiler,
 * plugin chain or connection mutex per execution. The dialects `openDatabase` builds
 * (`GatehousePostgresDialect`, `GatehouseSqliteDialect`) carry one on their Kysely adapter;
 * a Kysely instance on another dialect has none, and prepared queries then run their
 * compiled statement through `Kysely.executeQuery`.
 */
export interface DirectDriver {
  readonly dialect: DialectName
  /**
   * False when the next statement must go through Kysely instead (SQLite: a transaction is
   * open on the connection, whose statements Kysely's mutex keeps together; the Kysely
   * instance logs its statements). Asked before each `rows`.
   */
  available(): boolean
  /**
   * `map` of the rows of `text` run with `parameters` (the rows themselves without `map`):
   * SQLite answers synchronously (no promise at all), PostgreSQL with one promise. A failure
   * is always a rejected promise, never a throw, so a caller joining two statements never
   * leaves one's rejection unhandled.
   */
  rows<T = Record<string, unknown>[]>(text: string, parameters: readonly unknown[], map?: (rows: Record<string, unknown>[]) => T): MaybePromise<T>
}

/** Where a gatehouse dialect's Kysely adapter keeps its direct driver. */
export const DIRECT_DRIVER: unique symbol = Symbol('gatehouse.directDriver')

interface KyselyLike {
  readonly isTransaction?: boolean
  getExecutor?(): { readonly adapter: object; readonly plugins: readonly unknown[] }
}

/**
 * The direct driver of `db`'s dialect, or `undefined` when its statements must go through
 * Kysely: another dialect, a transaction (its statements belong on its connection), or
 * plugins (their result transforms apply).
 */
export function directDriverOf(db: object): DirectDriver | undefined {
  const k = db as KyselyLike
  if (typeof k.getExecutor !== 'function' || k.isTransaction === true) return undefined
  const executor = k.getExecutor()
  if (executor.plugins.length > 0) return undefined
  return (executor.adapter as { [DIRECT_DRIVER]?: DirectDriver })[DIRECT_DRIVER]
}

/** The part of a better-sqlite3 statement the driver uses. */
interface SqliteStatement {
  readonly reader: boolean
  all(parameters: readonly unknown[]): unknown[]
  run(parameters: readonly unknown[]): unknown
}

/** The part of a better-sqlite3 database the driver uses. */
interface SqliteConnection {
  readonly inTransaction: boolean
  prepare(sql: string): SqliteStatement
}

/** Prepared statements kept per SQL text; prepared queries have few texts, but stay bounded. */
const MAX_SQLITE_STATEMENTS = 512

/**
 * better-sqlite3 (and node:sqlite, bun:sqlite): each text is prepared once and kept; a run
 * binds and steps it and answers synchronously, as the driver does. SQLite re-prepares a kept
 * statement itself after a schema change (or fails with its error, e.g. `no such column`), so
 * a changed table never yields stale rows.
 */
export function sqliteDirectDriver(connection: SqliteConnection): DirectDriver {
  const statements = new Map<string, SqliteStatement>()
  return {
    dialect: 'sqlite',
    available: () => !connection.inTransaction,
    rows<T>(text: string, parameters: readonly unknown[], map?: (rows: Record<string, unknown>[]) => T): MaybePromise<T> {
      try {
        let statement = statements.get(text)
        if (statement === undefined) {
          statement = connection.prepare(text)
          if (statements.size >= MAX_SQLITE_STATEMENTS) statements.delete(statements.keys().next().value as string)
          statements.set(text, statement)
        }
        let rows: Record<string, unknown>[]
        if (statement.reader) rows = statement.all(parameters) as Record<string, unknown>[]
        else {
          statement.run(parameters)
          rows = []
        }
        return map === undefined ? (rows as T) : map(rows)
      } catch (error) {
        return Promise.reject(error as Error)
      }
    },
  }
}

/** PostgreSQL's SQLSTATE for "cached plan must not change result type". */
const PLAN_CHANGED = '0A000'

/** A prepared statement that no longer fits its tables: the schema changed while the pool was open. */
export class StaleStatementError extends Error {
  override readonly name = 'StaleStatementError'
  /** The SQL text of the statement. */
  readonly sql: string

  constructor(sql: string, cause: unknown) {
    super(
      'a prepared statement no longer matches its tables (their columns changed while the connection pool was open); ' +
        'restart the process after a migration, or open the database with preparedStatements: 0',
      { cause },
    )
    this.sql = sql
  }
}

/**
 * node-postgres: each run checks a connection out of the pool Kysely uses (`openDatabase`'s:
 * its timeouts, store-fault handling and named statements, each text prepared once per
 * connection), runs the text and releases it, without Kysely's builder, compiler or driver,
 * and with callbacks down to node-postgres: one promise per statement, the one it answers.
 * A statement prepared before its table's columns changed type fails with `StaleStatementError`.
 */
export function postgresDirectDriver(pool: Pick<GuardedPostgresPool, 'checkout'>): DirectDriver {
  return {
    dialect: 'postgres',
    available: () => true,
    rows<T>(text: string, parameters: readonly unknown[], map?: (rows: Record<string, unknown>[]) => T): Promise<T> {
      // Read here, in the caller's async context: the callbacks below run in the pool's or the socket's.
      const waitMs = scopedStatementTimeout() ?? 0
      return new Promise<T>((resolve, reject) => {
        pool.checkout((checkoutError, client) => {
          if (client === undefined) return reject(checkoutError as Error)
          client.exec(text, parameters, waitMs, (error, result) => {
            client.release()
            if (error != null) return reject((error as { code?: unknown }).code === PLAN_CHANGED ? new StaleStatementError(text, error) : (error as Error))
            const rows = (result?.rows ?? []) as Record<string, unknown>[]
            try {
              resolve(map === undefined ? (rows as T) : map(rows))
            } catch (mapError) {
              reject(mapError as Error)
            }
          })
        })
      })
    },
  }
}
