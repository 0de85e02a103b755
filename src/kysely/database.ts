import { Kysely, type Dialect, type SqliteDatabase, type SqliteStatement } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import { redactConfigValue } from '../core/redact.js'
import { sqliteDirectDriver } from './direct-driver.js'
import { GatehousePostgresDialect, GatehouseSqliteDialect } from './dialects.js'
import { GuardedPostgresPool } from './postgres-pool.js'
import { openSqliteConnection, type SqliteDriverName } from './sqlite-connection.js'
import { serverTimeoutFor } from './statement-timeout.js'
import type { DialectName } from './dialect-name.js'

export type { DialectName } from './dialect-name.js'

/** A connection target parsed from `DATABASE_URL`. */
export type DatabaseTarget =
  | { readonly dialect: 'sqlite'; readonly path: string }
  | { readonly dialect: 'postgres'; readonly url: string }

/** The default embedded database file, in the working directory. */
export const DEFAULT_SQLITE_PATH = 'gatehouse.sqlite3'

/**
 * `url` fit for a message or a log line: `redactConfigValue`, which masks URL user info (up
 * to the last `@`), secret query parameters and libpq `key=value` passwords.
 */
export function redactUrl(url: string): string {
  return redactConfigValue(url)
}

/**
 * Parses `DATABASE_URL`: unset or empty → the embedded SQLite file; `sqlite:<path>` or
 * `file:<path>` → that SQLite file (`:memory:` works); `postgres://` / `postgresql://` → PostgreSQL.
 */
export function parseDatabaseUrl(url: string | undefined): DatabaseTarget {
  if (url === undefined || url.trim() === '') return { dialect: 'sqlite', path: DEFAULT_SQLITE_PATH }
  const value = url.trim()
  if (/^postgres(ql)?:\/\//i.test(value)) return { dialect: 'postgres', url: value }
  const sqlite = /^(sqlite|file):(\/\/)?(.*)$/i.exec(value)
  if (sqlite !== null && sqlite[3] !== undefined && sqlite[3] !== '') return { dialect: 'sqlite', path: sqlite[3] }
  throw new ConfigurationError(
    'ERR_DATABASE_URL',
    `DATABASE_URL must be sqlite:<path>, file:<path> or postgres://…, got "${redactUrl(value)}"`,
  )
}

/** Options for `openDatabase`. */
export interface OpenDatabaseOptions {
  /** PostgreSQL: pool size. @default 10 */
  readonly poolSize?: number
  /**
   * PostgreSQL: the longest a request waits for a connection, whether for a free one in a
   * busy pool or for a new one to connect; past it the request answers 503.
   * @default 1000
   */
  readonly connectTimeoutMs?: number
  /**
   * PostgreSQL: the longest the client waits for one statement; past it the request answers
   * 503 and the connection is discarded. Checked by one watchdog timer per pool (a statement
   * is given up between this and an eighth more, at most 250 ms more), not a timer per
   * statement. A route that runs long queries raises it for itself with `withStatementTimeout`.
   * @default 2000
   */
  readonly statementTimeoutMs?: number
  /**
   * PostgreSQL: the server's own `statement_timeout` and `idle_in_transaction_session_timeout`
   * on every connection. Below `statementTimeoutMs`, so that wherever the server still runs,
   * it cancels a slow statement (and its transaction) before the client gives up: a 503 then
   * means nothing was written. Only a server that answers nothing at all (frozen, cut off)
   * leaves a write's outcome unknown.
   * @default statementTimeoutMs - 500, at least three quarters of it (1500)
   */
  readonly serverStatementTimeoutMs?: number
  /**
   * PostgreSQL: how many distinct SQL texts run as named prepared statements, parsed and
   * planned once per connection and reused (beyond it, texts run unnamed). `0` turns it off,
   * e.g. for an app that changes a table's columns while the pool is open. @default 256
   */
  readonly preparedStatements?: number
  /**
   * PostgreSQL behind a transaction pooler (PgBouncer in `transaction` mode; also
   * `?pgbouncer=true` on the URL, as Prisma spells it): statements run unnamed (a named one
   * is prepared on one server connection and run on another), and the timeouts are not sent
   * as startup parameters nor changed with `SET` (PgBouncer refuses the first and would hand
   * the second to other clients). The client-side `statementTimeoutMs` still applies; set the
   * server's with `ALTER ROLE … SET statement_timeout`. Without it, a pool that meets
   * PgBouncer's refusal of the timeout startup parameters, a server whose `statement_timeout`
   * is not the one sent (read back once per new connection: a pooler dropped it unseen), or
   * PgBouncer's `prepared statement … already exists` / `does not exist`, switches to this mode
   * by itself, with one warning.
   * @default false
   */
  readonly pgbouncer?: boolean
  /**
   * Open for reading only: SQLite opens an existing file read-only (a missing file is an
   * error, never created; the journal mode is left as it is); PostgreSQL sessions start
   * with `default_transaction_read_only`. For commands that must write nothing. @default false
   */
  readonly readOnly?: boolean
  /**
   * SQLite: the driver. By default `bun:sqlite` on Bun, `node:sqlite` on Deno, better-sqlite3
   * on Node (on Node 22.5 and later `node:sqlite` when better-sqlite3 is not installed; Node 22
   * prints an ExperimentalWarning when it loads). Each gives the same answers; only the chosen
   * one is loaded.
   * @default the runtime's own
   */
  readonly sqliteDriver?: SqliteDriverName
}

/** The part of a better-sqlite3 database (or an adapted node:sqlite or bun:sqlite one) the statement cache needs. */
interface PreparingDatabase {
  close(): unknown
  prepare(sql: string): SqliteStatement & { readonly busy: boolean }
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs about as much as
 * running a small indexed query. Reuse prepared statements by SQL text (a bounded,
 * least-recently-used map). A statement still iterating (a stream) is never shared.
 */
export function withStatementCache(db: PreparingDatabase, size = 256): SqliteDatabase {
  const cache = new Map<string, SqliteStatement & { readonly busy: boolean }>()
  return {
    close: () => {
      cache.clear()
      db.close()
    },
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql)
      if (cached !== undefined && !cached.busy) {
        cache.delete(sql)
        cache.set(sql, cached)
        return cached
      }
      const statement = db.prepare(sql)
      if (cached === undefined) {
        cache.set(sql, statement)
        if (cache.size > size) cache.delete(cache.keys().next().value as string)
      }
      return statement
    },
  }
}

/** The PostgreSQL timeouts of `options`, defaults filled in and checked. */
function postgresTimeouts(options: OpenDatabaseOptions): { connectTimeoutMs: number; statementTimeoutMs: number; serverStatementTimeoutMs: number } {
  const connectTimeoutMs = options.connectTimeoutMs ?? 1_000
  const statementTimeoutMs = options.statementTimeoutMs ?? 2_000
  const serverStatementTimeoutMs = options.serverStatementTimeoutMs ?? serverTimeoutFor(statementTimeoutMs)
  for (const [name, value] of Object.entries({ connectTimeoutMs, statementTimeoutMs, serverStatementTimeoutMs })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError('ERR_INVALID_SETTING', `openDatabase option "${name}" must be a positive integer (ms)`)
  }
  if (statementTimeoutMs < 2) throw new ConfigurationError('ERR_INVALID_SETTING', 'openDatabase option "statementTimeoutMs" must be at least 2 (ms): the server\'s must be below it')
  if (serverStatementTimeoutMs >= statementTimeoutMs) {
    throw new ConfigurationError('ERR_INVALID_SETTING', 'openDatabase option "serverStatementTimeoutMs" must be below "statementTimeoutMs" (the server must give up first)')
  }
  return { connectTimeoutMs, statementTimeoutMs, serverStatementTimeoutMs }
}

/** Creates the Kysely dialect for a target. The drivers are loaded only when used. */
export async function createDialect(target: DatabaseTarget, options: OpenDatabaseOptions = {}): Promise<Dialect> {
  return (await openDriver(target, options)).dialect
}

/**
 * `url` without a `pgbouncer=true` query parameter, and whether it had one (Prisma's spelling;
 * node-postgres would pass an unknown parameter on to the server).
 */
export function pgbouncerFromUrl(url: string): { url: string; pgbouncer: boolean } {
  if (!/[?&]pgbouncer=/i.test(url)) return { url, pgbouncer: false }
  const parsed = new URL(url)
  const value = parsed.searchParams.get('pgbouncer')
  parsed.searchParams.delete('pgbouncer')
  return { url: parsed.toString(), pgbouncer: value === 'true' || value === '1' }
}

/** The Kysely dialect of a target (it carries the direct driver of its prepared queries). */
async function openDriver(target: DatabaseTarget, options: OpenDatabaseOptions): Promise<{ dialect: Dialect; sqliteDriver?: SqliteDriverName; endPool?: () => Promise<void> }> {
  if (target.dialect === 'sqlite') {
    const { connection: db, driver } = await openSqliteConnection(target.path, { readOnly: options.readOnly === true }, options.sqliteDriver)
    if (options.readOnly !== true) db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA busy_timeout = 5000')
    db.exec('PRAGMA foreign_keys = ON')
    return { dialect: new GatehouseSqliteDialect({ database: withStatementCache(db) }, sqliteDirectDriver(db)), sqliteDriver: driver }
  }
  const pg = await import('pg')
  const Pool = pg.default.Pool
  // COUNT(*) and BIGINT come back as strings by default; parse int8 as number (row counts fit easily).
  pg.default.types.setTypeParser(20, (value: string) => Number(value))
  const timeouts = postgresTimeouts(options)
  const fromUrl = pgbouncerFromUrl(target.url)
  const pgbouncer = options.pgbouncer ?? fromUrl.pgbouncer
  const pool = new Pool({
    connectionString: fromUrl.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    // Startup parameters, set once per connection: the server gives up on a statement, or on a
    // transaction left idle, before the client does. PgBouncer refuses them (the role's settings apply).
    ...(pgbouncer
      ? {}
      : { statement_timeout: timeouts.serverStatementTimeoutMs, idle_in_transaction_session_timeout: timeouts.serverStatementTimeoutMs }),
    ...(options.readOnly === true ? { options: '-c default_transaction_read_only=on' } : {}),
  })
  // When the server goes away, pg-pool emits 'error' for each *idle* client (and drops it).
  // With no listener Node treats that as an unhandled 'error' event and the process dies;
  // the pool reconnects on the next checkout, so noting it is all there is to do.
  pool.on('error', (error: Error) => {
    console.error(`gatehouse: idle PostgreSQL connection lost (${error.message}); the pool will reconnect`)
  })
  // A connection that dies while checked out (mid-query, mid-transaction) also emits
  // 'error' on its client, where pg-pool has no listener: that too would kill the
  // process. The query itself fails (the request answers 503) and the pool discards
  // the broken client when it is released, so the event needs no further handling.
  pool.on('connect', (client) => {
    client.on('error', (error: Error) => {
      console.error(`gatehouse: PostgreSQL connection lost mid-query (${error.message})`)
    })
  })
  const guarded = new GuardedPostgresPool(pool, {
    statementTimeoutMs: timeouts.statementTimeoutMs,
    serverStatementTimeoutMs: pgbouncer ? null : timeouts.serverStatementTimeoutMs,
    preparedStatements: options.preparedStatements ?? 256,
    pgbouncer,
  })
  // Prepared queries check out the same guarded connections (timeouts, faults, statement names), without Kysely's executor.
  return { dialect: new GatehousePostgresDialect(guarded), endPool: () => guarded.end() }
}

/** An open database: the Kysely instance and which engine it talks to. */
export interface Database<DB> {
  readonly db: Kysely<DB>
  readonly dialect: DialectName
  /** SQLite: the driver `openDatabase` loaded; `undefined` on PostgreSQL. */
  readonly sqliteDriver: SqliteDriverName | undefined
  close(): Promise<void>
}

/** Opens `DATABASE_URL` (or the default SQLite file) as a Kysely instance. */
export async function openDatabase<DB>(url: string | undefined, options: OpenDatabaseOptions = {}): Promise<Database<DB>> {
  const target = parseDatabaseUrl(url)
  const { dialect, sqliteDriver, endPool } = await openDriver(target, options)
  const db = new Kysely<DB>({ dialect })
  // Kysely's destroy() ends the pool only if a query went through Kysely itself; the stores'
  // prepared statements and `migrate` use the pool directly, so a server or a CLI command may
  // never have, and an idle connection would then hold the process open for pg's 10 s idle timeout.
  const close = async (): Promise<void> => {
    await db.destroy()
    await endPool?.()
  }
  return { db, dialect: target.dialect, sqliteDriver, close }
}
