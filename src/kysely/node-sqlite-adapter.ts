/**
 * node:sqlite (Deno, Node ≥ 22.5) in better-sqlite3's shape, for Kysely's `SqliteDialect`,
 * the statement cache and the direct driver. The differences it hides: parameters are
 * spread rather than passed as an array, `reader` comes from the statement's columns,
 * rows have a null prototype (copied into plain objects, as better-sqlite3 returns them),
 * and an error's SQLite code is a number (`errcode`), named here in `code` as
 * better-sqlite3 names it.
 */
import type { SqliteConnection, SqliteConnectionStatement, SqliteOpenOptions } from './sqlite-connection-shape.js'
import { sqliteCodeName } from './sqlite-error-codes.js'

interface StatementSync {
  columns(): readonly unknown[]
  all(...parameters: unknown[]): Record<string, unknown>[]
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  iterate(...parameters: unknown[]): IterableIterator<Record<string, unknown>>
}

interface DatabaseSync {
  readonly isTransaction: boolean
  prepare(sql: string): StatementSync
  exec(sql: string): void
  close(): void
}

interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => DatabaseSync
  StatementSync?: { prototype: object }
}

function plain(row: Record<string, unknown>): Record<string, unknown> {
  return { ...row }
}

function named(error: unknown): unknown {
  const errcode = (error as { errcode?: unknown } | null)?.errcode
  if (typeof errcode === 'number') Object.defineProperty(error, 'code', { value: sqliteCodeName(errcode), configurable: true, writable: true, enumerable: true })
  return error
}

class NodeSqliteStatement implements SqliteConnectionStatement {
  readonly reader: boolean
  #busy = false
  readonly #statement: StatementSync

  constructor(statement: StatementSync) {
    this.#statement = statement
    this.reader = statement.columns().length > 0
  }

  get busy(): boolean {
    return this.#busy
  }

  all(parameters: readonly unknown[]): unknown[] {
    try {
      return this.#statement.all(...parameters).map(plain)
    } catch (error) {
      throw named(error)
    }
  }

  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    try {
      const { changes, lastInsertRowid } = this.#statement.run(...parameters)
      return { changes, lastInsertRowid }
    } catch (error) {
      throw named(error)
    }
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    // Running the statement again would reset the open cursor: the cache skips it while busy.
    this.#busy = true
    try {
      for (const row of this.#statement.iterate(...parameters)) yield plain(row)
    } catch (error) {
      throw named(error)
    } finally {
      this.#busy = false
    }
  }
}

class NodeSqliteConnection implements SqliteConnection {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction
  }

  prepare(sql: string): SqliteConnectionStatement {
    try {
      return new NodeSqliteStatement(this.#db.prepare(sql))
    } catch (error) {
      throw named(error)
    }
  }

  exec(sql: string): void {
    try {
      this.#db.exec(sql)
    } catch (error) {
      throw named(error)
    }
  }

  close(): void {
    this.#db.close()
  }
}

/**
 * Opens `path` with node:sqlite, or `undefined` when this runtime's node:sqlite is too old
 * for the adapter (no `StatementSync.columns()`, or no `isTransaction` on its databases).
 */
export function openNodeSqlite(module: unknown, path: string, options: SqliteOpenOptions): SqliteConnection | undefined {
  const { DatabaseSync, StatementSync } = module as NodeSqliteModule
  if (typeof DatabaseSync !== 'function' || StatementSync === undefined) return undefined
  if (!('columns' in StatementSync.prototype)) return undefined
  let db: DatabaseSync
  try {
    // Read-only opens never create the file: a missing one fails, as better-sqlite3's fileMustExist.
    db = options.readOnly ? new DatabaseSync(path, { readOnly: true }) : new DatabaseSync(path)
  } catch (error) {
    throw named(error)
  }
  // Read on the instance: Node 22 and 24 define isTransaction there, not on DatabaseSync.prototype.
  if (typeof (db as { isTransaction?: unknown }).isTransaction !== 'boolean') {
    db.close()
    return undefined
  }
  return new NodeSqliteConnection(db)
}
