/**
 * Recognises errors that mean "a store (PostgreSQL, Redis, SQLite) is down or too
 * slow right now", as opposed to a bug. The pipeline answers those with 503 and the
 * process keeps serving: the drivers reconnect by themselves once the store returns.
 *
 * Detection is by duck typing (`code`, `message`, `name`) so the core needs neither
 * `pg` nor `ioredis`, and a user's own store built on either driver is covered too.
 */
import { ServiceUnavailable } from './errors.js'

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

/** D1's error for a locked database: SQLite's code at the end of its text (`D1_ERROR: database is locked: SQLITE_BUSY`). */
const D1_BUSY = /^D1_ERROR: .{0,500}\bSQLITE_BUSY\b/

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
  // Cloudflare D1 (its errors carry no code, only the text): a database locked by another
  // writer, the connection to it lost, its queue full, its object reset.
  D1_BUSY,
  /^D1_ERROR: Network connection lost/,
  /^(D1_ERROR: )?D1 DB is overloaded/,
  /^D1_ERROR: .{0,200}caused object to be reset/,
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

/** Why a store could not serve: it did not answer in time, refused, or dropped the connection. */
export type StoreFaultReason = 'timeout' | 'refused' | 'lost' | 'busy' | 'unavailable'

/** What a log line says about a store fault (never the driver's full text: it may name hosts). */
export interface StoreFault {
  /** `postgres`, `redis`, `sqlite`, or `store` when the error does not say. */
  readonly store: string
  /** What was being done: `query`, `pool acquisition`, `connect`, `throttle hit`, `session load`, … */
  readonly operation: string
  readonly reason: StoreFaultReason
}

/**
 * A store fault with what was being done (503 `store_unavailable`): the stores throw it so the
 * log line can name the store and the operation. The driver's error is its `cause`.
 */
export class StoreUnavailable extends ServiceUnavailable {
  readonly store: string
  readonly operation: string
  constructor(store: string, operation: string, cause: unknown) {
    super(STORE_UNAVAILABLE_DETAIL, 'store_unavailable')
    this.store = store
    this.operation = operation
    Object.defineProperty(this, 'cause', { value: cause, configurable: true, writable: true })
  }
}

const TIMEOUT_CODES: ReadonlySet<string> = new Set(['ETIMEDOUT', '57014'])
const REFUSED_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P03', '53300'])

/** The reason one driver error gives, by code then message (a fixed list: no pattern runs on client input). */
function reasonOf(value: object): StoreFaultReason | null {
  const record = value as { code?: unknown; message?: unknown }
  const code = typeof record.code === 'string' ? record.code : ''
  const message = typeof record.message === 'string' ? record.message : ''
  if (code === 'SQLITE_BUSY' || D1_BUSY.test(message)) return 'busy'
  if (TIMEOUT_CODES.has(code) || /time(d)? ?out/i.test(message)) return 'timeout'
  if (REFUSED_CODES.has(code) || /ECONNREFUSED/.test(message)) return 'refused'
  if (isFault(value)) return 'lost'
  return null
}

/** Which store a bare driver error comes from, when its text or code says. */
function storeOf(value: object): string {
  const record = value as { code?: unknown; message?: unknown; name?: unknown }
  const code = typeof record.code === 'string' ? record.code : ''
  if (code.startsWith('SQLITE_')) return 'sqlite'
  if (typeof record.message === 'string' && /^D1(_ERROR:| DB )/.test(record.message)) return 'd1'
  if (/^[0-9A-Z]{5}$/.test(code) && /[0-9]/.test(code)) return 'postgres'
  const message = typeof record.message === 'string' ? record.message : ''
  if (/^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered)/.test(message)) return 'postgres'
  if (/^(Connection is closed|Command timed out|Stream isn't writeable|Reached the max retries)/.test(message)) return 'redis'
  return 'store'
}

/**
 * What a store fault was (store, operation, reason), for logs; `null` when `error` is not one.
 * Reads a `StoreUnavailable` in the error or its causes first, then the driver's own error.
 */
export function describeStoreFault(error: unknown): StoreFault | null {
  let tagged: StoreUnavailable | null = null
  let reason: StoreFaultReason | null = null
  let store: string | null = null
  const seen = new Set<unknown>()
  const pending: unknown[] = [error]
  while (pending.length > 0) {
    const current = pending.shift()
    if (typeof current !== 'object' || current === null || seen.has(current)) continue
    seen.add(current)
    if (current instanceof StoreUnavailable) tagged ??= current
    else if (reason === null) {
      reason = reasonOf(current)
      if (reason !== null) store = storeOf(current)
    }
    pending.push((current as { cause?: unknown }).cause)
    const members = (current as { errors?: unknown }).errors
    if (Array.isArray(members)) pending.push(...(members as unknown[]))
  }
  if (tagged !== null) return { store: tagged.store, operation: tagged.operation, reason: reason ?? 'unavailable' }
  if (reason === null) return null
  return { store: store ?? 'store', operation: 'query', reason }
}
