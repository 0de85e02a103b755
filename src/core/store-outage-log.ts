import { describeStoreFault, type StoreFault } from './store-faults.js'

/** Receives each request answered 503 because a store failed (`Settings.logStoreFault`). */
export type StoreFaultLogger = (error: unknown, context: { readonly method: string; readonly path: string }) => void

/** Options for `createStoreOutageLog`. */
export interface StoreOutageLogOptions {
  /** Where lines go. @default console.error */
  readonly write?: (line: string) => void
  /** An outage of a store ends after this many ms without a 503 from it. @default 5000 */
  readonly quietMs?: number
  /** @default Date.now */
  readonly now?: () => number
}

/** One store's outage in progress. */
interface Outage {
  readonly startedAt: number
  lastAt: number
  count: number
  readonly timer: NodeJS.Timeout
}

/** The innermost cause of `error` (at most five deep): the driver's own error (`Query read timeout`, `connect ECONNREFUSED …`). */
function innermostCause(error: unknown): unknown {
  let current: unknown = error
  for (let depth = 0; depth < 5; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause
    if (typeof cause !== 'object' || cause === null) break
    current = cause
  }
  return current
}

/** The driver's first line, short: enough to tell faults apart, never a whole dump. */
function shortMessage(error: unknown): string {
  const cause = innermostCause(error)
  const message = cause instanceof Error ? cause.message : String(cause)
  const firstLine = message.split('\n', 1)[0] ?? ''
  return firstLine.length > 160 ? `${firstLine.slice(0, 157)}...` : firstLine
}

/** The stack of the innermost error (the driver's), for the outage's first line. */
function innermostStack(error: unknown): string {
  const cause = innermostCause(error)
  return cause instanceof Error && cause.stack !== undefined ? cause.stack : String(cause)
}

function describe(fault: StoreFault): string {
  return `${fault.store} ${fault.operation} ${fault.reason}`
}

/**
 * The default `logStoreFault`: one line per request answered 503 with its cause
 * (`gatehouse: 503 GET /api/articles/: postgres query timeout (Query read timeout)`), the
 * driver's stack once when a store's outage begins, and one line with the count when it ends
 * (`quietMs` after its last 503). A 10 s outage at 100 requests/s writes ~1,000 short lines
 * and one stack, not a stack per request.
 *
 * @example
 * createApi({ logStoreFault: createStoreOutageLog({ write: (line) => logger.warn(line) }) })
 */
export function createStoreOutageLog(options: StoreOutageLogOptions = {}): StoreFaultLogger {
  const write = options.write ?? ((line: string) => console.error(line))
  const quietMs = options.quietMs ?? 5_000
  const now = options.now ?? Date.now
  const outages = new Map<string, Outage>()
  const end = (store: string): void => {
    const outage = outages.get(store)
    if (outage === undefined) return
    outages.delete(store)
    const seconds = ((outage.lastAt - outage.startedAt) / 1000).toFixed(1)
    write(`gatehouse: ${store} outage over: ${outage.count} ${outage.count === 1 ? 'request' : 'requests'} answered 503 in ${seconds} s`)
  }
  return (error, context) => {
    const fault = describeStoreFault(error) ?? { store: 'store', operation: 'request', reason: 'unavailable' }
    const at = now()
    write(`gatehouse: 503 ${context.method} ${context.path}: ${describe(fault)} (${shortMessage(error)})`)
    const outage = outages.get(fault.store)
    if (outage !== undefined) {
      outage.count++
      outage.lastAt = at
      outage.timer.refresh()
      return
    }
    // Unref'd: an outage in progress never keeps the process alive.
    const timer = setTimeout(() => end(fault.store), quietMs)
    timer.unref()
    outages.set(fault.store, { startedAt: at, lastAt: at, count: 1, timer })
    write(`gatehouse: ${fault.store} outage began (${describe(fault)}); its stack, once per outage:\n${innermostStack(error)}`)
  }
}
