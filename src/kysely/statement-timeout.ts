import { AsyncLocalStorage } from 'node:async_hooks'
import type { PostgresPool, PostgresPoolClient } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import { isStoreUnavailable, StoreUnavailable } from '../core/store-faults.js'

/** The statement timeout that `withStatementTimeout` set for the code running now. */
const routeTimeout = new AsyncLocalStorage<number>()

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
 * acquisition keeps its own `connectTimeoutMs`. SQLite ignores it.
 *
 * @example
 * const rows = await withStatementTimeout(30_000, () => db.selectFrom('orders').selectAll().execute())
 */
export function withStatementTimeout<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `withStatementTimeout: ms must be a positive integer, got ${String(ms)}`)
  }
  return routeTimeout.run(ms, fn)
}

/** The part of a node-postgres client the wrapper uses. */
interface PgClient {
  query(config: object): Promise<unknown>
  release(error?: Error | boolean): void
}

/** The part of a node-postgres pool the wrapper uses. */
interface PgPool {
  connect(): Promise<unknown>
  end(): Promise<void>
  /** node-postgres' pool settings: Kysely 0.29 reads them (`PostgresPool.options`). */
  readonly options?: object
}

/** Timeouts `guardPool` applies. */
export interface PoolTimeouts {
  /** Client-side wait for one statement (ms). */
  readonly statementTimeoutMs: number
  /** The server's `statement_timeout` the pool's connections start with (ms). */
  readonly serverStatementTimeoutMs: number
}

/** What a pool acquisition failure was: waiting for a connection, or making one. */
function acquisitionStep(error: unknown): string {
  const message = error instanceof Error ? error.message : ''
  return message.startsWith('timeout exceeded when trying to connect') ? 'pool acquisition' : 'connect'
}

/**
 * Wraps a node-postgres pool for Kysely so that a stalled server answers 503 within the
 * configured bounds, and a connection that failed is never reused:
 * - every statement carries a client-side `query_timeout` (the pool's, or the one
 *   `withStatementTimeout` set), and the server's `statement_timeout` follows a raised one;
 * - store faults are thrown as `StoreUnavailable` naming the step (`pool acquisition`,
 *   `connect`, `query`), for the 503 log line; other errors (a unique violation) pass as they are;
 * - a connection whose statement failed with a store fault (a client-side timeout leaves the
 *   statement running on it, a frozen server never answers it) runs nothing more and is
 *   destroyed on release, not handed to the next request behind a statement that may never
 *   finish; a statement the server cancelled itself (`statement_timeout`) leaves it in use.
 */
export function guardPool(pool: PgPool, timeouts: PoolTimeouts): PostgresPool {
  // Kysely keys its connections by client object: hand out one wrapper per client.
  const wrappers = new WeakMap<object, PostgresPoolClient>()
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: PgClient
      try {
        client = (await pool.connect()) as PgClient
      } catch (error) {
        throw isStoreUnavailable(error) ? new StoreUnavailable('postgres', acquisitionStep(error), error) : error
      }
      let wrapper = wrappers.get(client)
      if (wrapper === undefined) {
        wrapper = wrapClient(client, timeouts)
        wrappers.set(client, wrapper)
      }
      return wrapper
    },
    end: () => pool.end(),
    options: pool.options ?? {},
  }
}

function wrapClient(client: PgClient, timeouts: PoolTimeouts): PostgresPoolClient {
  // The server's statement_timeout on this connection (it starts at the pool's), and whether
  // a statement failed in a way that makes the connection unfit to reuse.
  let serverTimeout = timeouts.serverStatementTimeoutMs
  let broken: Error | null = null
  const run = async (config: object): Promise<unknown> => {
    // A connection that failed is not asked again (Kysely's ROLLBACK after a timed-out statement
    // would wait behind it for another timeout): it is discarded on release, which ends the
    // server's transaction.
    if (broken !== null) throw new StoreUnavailable('postgres', 'query', broken)
    const clientMs = routeTimeout.getStore() ?? timeouts.statementTimeoutMs
    const wanted = clientMs === timeouts.statementTimeoutMs ? timeouts.serverStatementTimeoutMs : serverTimeoutFor(clientMs)
    try {
      if (wanted !== serverTimeout) {
        // Unknown until it succeeds (a failed SET inside a transaction is rolled back).
        serverTimeout = -1
        await client.query({ text: `SET statement_timeout = ${wanted}`, query_timeout: timeouts.statementTimeoutMs })
        serverTimeout = wanted
      }
      return await client.query({ ...config, query_timeout: clientMs })
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error
      // The server cancelled the statement itself (57014): it answered, the connection is sound.
      if ((error as { code?: unknown }).code !== '57014') broken = error instanceof Error ? error : new Error(String(error))
      throw new StoreUnavailable('postgres', 'query', error)
    }
  }
  return {
    query: ((sqlOrConfig: unknown, parameters?: readonly unknown[]) => {
      if (typeof sqlOrConfig === 'string') return run({ text: sqlOrConfig, values: [...(parameters ?? [])] })
      // A cursor (Kysely's stream) is a submittable the client drives itself: pass it on.
      if (typeof (sqlOrConfig as { submit?: unknown }).submit === 'function') return (client as { query(cursor: unknown): unknown }).query(sqlOrConfig)
      return run(sqlOrConfig as object)
    }) as PostgresPoolClient['query'],
    release: () => {
      if (broken === null) return client.release()
      // pg-pool ends a client released with an error instead of keeping it.
      const reason = broken
      broken = null
      serverTimeout = timeouts.serverStatementTimeoutMs
      client.release(reason)
    },
  }
}
