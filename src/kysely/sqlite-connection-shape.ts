/**
 * The shape of a SQLite connection that `openDatabase`, the statement cache and the direct
 * driver use (better-sqlite3's, which Kysely's `SqliteDialect` expects), apart from the code
 * that opens one, so the node:sqlite and bun:sqlite adapters implement it without importing
 * the opener that loads them.
 */

/** A prepared statement, as better-sqlite3 has it. */
export interface SqliteConnectionStatement {
  /** Whether the statement returns rows (a `SELECT`, or a write with `RETURNING`). */
  readonly reader: boolean
  /** Whether an iteration over the statement's rows is still open (the statement can't run meanwhile). */
  readonly busy: boolean
  all(parameters: readonly unknown[]): unknown[]
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>
}

/** A SQLite database, as better-sqlite3 has it (the part gatehouse uses). */
export interface SqliteConnection {
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean
  prepare(sql: string): SqliteConnectionStatement
  /** Runs SQL text that returns no rows (pragmas, several statements). */
  exec(sql: string): unknown
  close(): unknown
}

/** How to open a SQLite file. */
export interface SqliteOpenOptions {
  /** Open an existing file read-only: a missing file is an error, never created. */
  readonly readOnly: boolean
}
