/**
 * bun:sqlite in better-sqlite3's shape, for Kysely's `SqliteDialect`, the statement cache and
 * the direct driver. bun:sqlite is close already (`reader`, `inTransaction`, errors coded
 * `SQLITE_…`); what it lacks is an array of parameters (spread here) and `busy`: running a
 * statement again invalidates an open iteration, so the adapter tracks that for the cache.
 */
import type { SqliteConnection, SqliteConnectionStatement, SqliteOpenOptions } from './sqlite-connection-shape.js'

interface BunStatement {
  readonly reader: boolean
  all(...parameters: unknown[]): unknown[]
  run(...parameters: unknown[]): { changes: number; lastInsertRowid: number | bigint }
  iterate(...parameters: unknown[]): IterableIterator<unknown>
}

interface BunDatabase {
  readonly inTransaction: boolean
  prepare(sql: string): BunStatement
  exec(sql: string): unknown
  close(): void
}

interface BunSqliteModule {
  Database: new (path: string, options?: { readonly?: boolean; create?: boolean; strict?: boolean }) => BunDatabase
}

class BunSqliteStatement implements SqliteConnectionStatement {
  #busy = false
  readonly #statement: BunStatement

  constructor(statement: BunStatement) {
    this.#statement = statement
  }

  get reader(): boolean {
    return this.#statement.reader
  }

  get busy(): boolean {
    return this.#busy
  }

  all(parameters: readonly unknown[]): unknown[] {
    return this.#statement.all(...parameters)
  }

  run(parameters: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    const { changes, lastInsertRowid } = this.#statement.run(...parameters)
    return { changes, lastInsertRowid }
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    this.#busy = true
    try {
      yield* this.#statement.iterate(...parameters)
    } finally {
      this.#busy = false
    }
  }
}

class BunSqliteConnection implements SqliteConnection {
  readonly #db: BunDatabase

  constructor(db: BunDatabase) {
    this.#db = db
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction
  }

  prepare(sql: string): SqliteConnectionStatement {
    return new BunSqliteStatement(this.#db.prepare(sql))
  }

  exec(sql: string): unknown {
    return this.#db.exec(sql)
  }

  close(): void {
    this.#db.close()
  }
}

/** Opens `path` with bun:sqlite (read-only opens never create the file). */
export function openBunSqlite(module: unknown, path: string, options: SqliteOpenOptions): SqliteConnection {
  const { Database } = module as BunSqliteModule
  return new BunSqliteConnection(options.readOnly ? new Database(path, { readonly: true, create: false }) : new Database(path))
}
