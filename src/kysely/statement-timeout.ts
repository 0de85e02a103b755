import { AsyncLocalStorage } from 'node:async_hooks'
import { ConfigurationError } from '../core/errors.js'

/** Made on first use, so a process that never calls `withStatementTimeout` runs no async hooks. */
let routeTimeout: AsyncLocalStorage<number> | null = null

/** The timeout `withStatementTimeout` set for the code running now; `undefined` outside one (or when it was never used). */
export function scopedStatementTimeout(): number | undefined {
  return routeTimeout === null ? undefined : routeTimeout.getStore()
}

/**
 * The server-side `statement_timeout` that goes with a client-side wait of `clientMs`: the
 * server must give up first (cancelling the statement, so a write that answered 503 did
 * not commit), with time for its cancel to reach the client. 500 ms less, but at least
 * three quarters of it.
 */
export function serverTimeoutFor(clientMs: number): number {
  return Math.max(1, clientMs - 500, Math.floor(clientMs * 0.75))
}

/**
 * Runs `fn` with PostgreSQL statements allowed `ms` instead of the pool's `statementTimeoutMs`
 * (2 s by default): for a route or a job that runs long queries on purpose (a report, an
 * export, a bulk import). Statements that `fn` runs through a database opened with
 * `openDatabase`/`createDialect` wait up to `ms` on the client side, and the server's
 * `statement_timeout` is raised to match (`SET statement_timeout`, sent only when the
 * connection's value differs, and set back on the next statement outside `fn`). Pool
 * acquisition keeps its own `connectTimeoutMs`. SQLite ignores it. Its first call turns on
 * Node's async hooks for the rest of the process (the limit lives in an `AsyncLocalStorage`),
 * which every promise then pays for: keep it for routes that need it.
 *
 * @example
 * const rows = await withStatementTimeout(30_000, () => db.selectFrom('orders').selectAll().execute())
 */
export function withStatementTimeout<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `withStatementTimeout: ms must be a positive integer, got ${String(ms)}`)
  }
  routeTimeout ??= new AsyncLocalStorage<number>()
  return routeTimeout.run(ms, fn)
}

