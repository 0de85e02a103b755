/**
 * Recognises errors that mean "a store (PostgreSQL, Redis, SQLite) is down or too
 * slow right now", as opposed to a bug. The pipeline answers those with 503 and the
 * process keeps serving: the drivers reconnect by themselves once the store returns.
 *
 * Detection is by duck typing (`code`, `message`, `name`) so the core needs neither
 * `pg` nor `ioredis`, and a user's own store built on either driver is covered too.
 */

/** Node socket error codes that mean the server could not be reached or went away. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SQLITE_BUSY', // busy_timeout elapsed: another writer holds the lock
])

/**
 * PostgreSQL SQLSTATEs of an unavailable server: class 08 (connection exception),
 * 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up,
 * shutting down), 57014 query canceled (statement_timeout), 53300 too many connections.
 */
const PG_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '57014', '53300'])

/** Messages the drivers use for faults that carry no code (pg, pg-pool, ioredis). */
const FAULT_MESSAGES: readonly RegExp[] = [
  /^Connection terminated/, // pg: "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect/, // pg-pool: connectionTimeoutMillis
  /^timeout expired$/, // pg client: connect timeout
  /^Query read timeout$/, // pg: query_timeout
  /^Client has encountered a connection error and is not queryable/, // pg
  /^Connection is closed\.?$/, // ioredis
  /^Command timed out$/, // ioredis: commandTimeout
  /^Stream isn't writeable and enableOfflineQueue options is false/, // ioredis
  /^Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
  /^Command aborted due to connection close/, // ioredis AbortError
  /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN)\b/, // Redis server replies while not ready
  /^connect ETIMEDOUT/, // ioredis connectTimeout
  /^Socket timeout/, // ioredis socketTimeout
]

/** Error names that always mean an unavailable store. */
const FAULT_NAMES: ReadonlySet<string> = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError'])

function isFault(value: object): boolean {
  const record = value as { code?: unknown; message?: unknown; name?: unknown }
  const code = typeof record.code === 'string' ? record.code : ''
  if (NETWORK_CODES.has(code) || PG_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true
  if (typeof record.name === 'string' && FAULT_NAMES.has(record.name)) return true
  const message = typeof record.message === 'string' ? record.message : ''
  return FAULT_MESSAGES.some((pattern) => pattern.test(message))
}

/**
 * True when `error` (or anything in its `cause` chain, or an `AggregateError`'s
 * members, as Node's happy-eyeballs connect throws) is a store connection failure
 * or timeout: the request should answer 503, not 500.
 */
export function isStoreUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>()
  const pending: unknown[] = [error]
  while (pending.length > 0) {
    const current = pending.pop()
    if (typeof current !== 'object' || current === null || seen.has(current)) continue
    seen.add(current)
    if (isFault(current)) return true
    pending.push((current as { cause?: unknown }).cause)
    const members = (current as { errors?: unknown }).errors
    if (Array.isArray(members)) pending.push(...(members as unknown[]))
  }
  return false
}

/** The 503 message: says what failed without the driver's text (it may name hosts). */
export const STORE_UNAVAILABLE_DETAIL = 'A data store is temporarily unavailable. Try again later.'
