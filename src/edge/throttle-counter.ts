import { StoreUnavailable } from '../core/store-faults.js'
import type { ReservationHit, ReservingThrottleStore, ThrottleHit, ThrottleStore } from '../throttling/throttle-store.js'

/** One key's counts, as the object stores them. */
interface Counts {
  /** Hit times (ms). */
  hits: number[]
  /** When each confirmed failure leaves its window (ms). */
  failures: number[]
  /** Live reservations: `[id, end of lease]`. */
  leases: [string, number][]
  /**
   * When the alarm deletes the record (ms, the object's clock): a grace after the last entry
   * ends. Steps carry their callers' times, so how long an entry lasts is measured from the
   * step, not compared with this clock.
   */
  deleteAt: number
}

/** One step, as the store sends it to the object. */
type Step =
  | { readonly op: 'hit'; readonly now: number; readonly windowMs: number; readonly limit: number }
  | { readonly op: 'reserve'; readonly id: string; readonly now: number; readonly windowMs: number; readonly limit: number; readonly leaseEnd: number }
  | { readonly op: 'confirm'; readonly id: string; readonly at: number; readonly windowMs: number }
  | { readonly op: 'cancel'; readonly id: string }

/** The part of a Durable Object's `state.storage` the counter uses. */
interface CounterStorage {
  get<T>(key: string): Promise<T | undefined>
  put(key: string, value: unknown): Promise<void>
  delete(key: string): Promise<boolean>
  setAlarm(scheduledTime: number): Promise<void>
}

/** A Durable Object namespace binding (`env.THROTTLES`), as far as the store uses it. */
interface CounterNamespace {
  idFromName(name: string): unknown
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

const RECORD = 'counts'

/** The record outlives its last entry by this much (ms), for callers whose clock runs behind. */
const GRACE_MS = 60_000

/**
 * A Cloudflare Durable Object that keeps one throttle key's counts: Cloudflare's strongly
 * consistent counter. Every isolate's hits on a key go to the one object of that key
 * (`idFromName(key)`), which runs them one at a time, its storage read and written within
 * the step (the object's input gate admits no other request meanwhile), so a budget holds
 * across every isolate and location. Keys spread over as many objects as there are keys;
 * a key's record is deleted by an alarm once its entries have ended.
 *
 * Export the class from your Worker's main module, bind it (`durable_objects.bindings`,
 * with a `new_sqlite_classes` or `new_classes` migration), and hand the binding to
 * {@link ThrottleCounter.store}, which gives the `ThrottleStore` the throttles and
 * `LoginFailureThrottle` take.
 *
 * @example
 * export { ThrottleCounter } from 'drf-gatehouse/d1'
 * // in fetch(request, env): one store per isolate is enough
 * const store = ThrottleCounter.store(env.THROTTLES)
 * const throttle = new UserRateThrottle({ store, rate: '1000/hour' })
 */
export class ThrottleCounter {
  /**
   * The brand `@cloudflare/workers-types` gives Durable Object classes (`DurableObject` of
   * `cloudflare:workers` has it), so that `DurableObjectNamespace<ThrottleCounter>`, as
   * `wrangler types` writes the binding, type-checks. Declared only: nothing at run time.
   */
  declare readonly __DURABLE_OBJECT_BRAND: never

  private readonly storage: CounterStorage

  constructor(state: { readonly storage: CounterStorage }, _env?: unknown) {
    this.storage = state.storage
  }

  /**
   * The throttle store over a namespace bound to this class: each step is one request to the
   * key's object. A request that fails or answers an error is `StoreUnavailable` (503).
   */
  static store(namespace: CounterNamespace): ThrottleStore & ReservingThrottleStore {
    return new DurableObjectThrottleStore(namespace)
  }

  /** Runs one step (the store's request) and answers its outcome as JSON. */
  async fetch(request: Request): Promise<Response> {
    let step: Step
    try {
      step = parseStep(await request.json())
    } catch {
      return new Response('malformed step', { status: 400 })
    }
    const counts: Counts = (await this.storage.get<Counts>(RECORD)) ?? { hits: [], failures: [], leases: [], deleteAt: 0 }
    const { answer, lastsMs } = run(counts, step)
    if (counts.hits.length === 0 && counts.failures.length === 0 && counts.leases.length === 0) {
      await this.storage.delete(RECORD)
    } else {
      counts.deleteAt = Math.max(counts.deleteAt, Date.now() + Math.max(0, lastsMs) + GRACE_MS)
      await this.storage.put(RECORD, counts)
      await this.storage.setAlarm(counts.deleteAt)
    }
    return Response.json(answer ?? null)
  }

  /** Deletes the record once its entries have ended (a step since may have moved that later). */
  async alarm(): Promise<void> {
    const counts = await this.storage.get<Counts>(RECORD)
    if (counts === undefined) return
    if (counts.deleteAt <= Date.now()) await this.storage.delete(RECORD)
    else await this.storage.setAlarm(counts.deleteAt)
  }
}

/**
 * Applies `step` to `counts` (in place), as `ThrottleStore`'s and `ReservingThrottleStore`'s
 * contracts say: the answer, and how long (ms from the step) what it recorded lasts.
 */
function run(counts: Counts, step: Step): { answer: ThrottleHit | ReservationHit | undefined; lastsMs: number } {
  switch (step.op) {
    case 'hit': {
      counts.hits = counts.hits.filter((t) => t > step.now - step.windowMs)
      const allowed = counts.hits.length < step.limit
      if (allowed) counts.hits.push(step.now)
      const answer = { allowed, count: counts.hits.length, oldest: counts.hits.length === 0 ? null : Math.min(...counts.hits) }
      return { answer, lastsMs: step.windowMs }
    }
    case 'reserve': {
      counts.failures = counts.failures.filter((end) => end > step.now)
      counts.leases = counts.leases.filter(([, end]) => end > step.now)
      const allowed = counts.failures.length + counts.leases.length < step.limit && step.leaseEnd > step.now
      if (allowed) counts.leases.push([step.id, step.leaseEnd])
      const ends = counts.leases.map(([, end]) => end)
      const answer = {
        allowed,
        failures: counts.failures.length,
        pending: counts.leases.length,
        oldest: counts.failures.length === 0 ? null : Math.min(...counts.failures) - step.windowMs,
        nextLeaseEnd: ends.length === 0 ? null : Math.min(...ends),
      }
      return { answer, lastsMs: allowed ? step.leaseEnd - step.now : 0 }
    }
    case 'confirm':
      counts.leases = counts.leases.filter(([id]) => id !== step.id)
      counts.failures.push(step.at + step.windowMs)
      return { answer: undefined, lastsMs: step.windowMs }
    case 'cancel':
      counts.leases = counts.leases.filter(([id]) => id !== step.id)
      return { answer: undefined, lastsMs: 0 }
  }
}

function parseStep(body: unknown): Step {
  if (typeof body !== 'object' || body === null) throw new TypeError('not an object')
  const step = body as Record<string, unknown>
  const numbers = (...names: string[]): void => {
    for (const name of names) if (typeof step[name] !== 'number' || !Number.isFinite(step[name])) throw new TypeError(`${name} is not a number`)
  }
  const id = (): void => {
    if (typeof step['id'] !== 'string') throw new TypeError('id is not a string')
  }
  switch (step['op']) {
    case 'hit':
      numbers('now', 'windowMs', 'limit')
      break
    case 'reserve':
      id()
      numbers('now', 'windowMs', 'limit', 'leaseEnd')
      break
    case 'confirm':
      id()
      numbers('at', 'windowMs')
      break
    case 'cancel':
      id()
      break
    default:
      throw new TypeError('unknown op')
  }
  return step as unknown as Step
}

/** The `ThrottleStore` side: one request per step to the key's object. */
class DurableObjectThrottleStore implements ThrottleStore, ReservingThrottleStore {
  constructor(private readonly namespace: CounterNamespace) {}

  async hit(key: string, now: number, windowMs: number, limit: number): Promise<ThrottleHit> {
    return (await this.send(key, { op: 'hit', now, windowMs, limit })) as ThrottleHit
  }

  async reserve(key: string, id: string, now: number, windowMs: number, limit: number, leaseEnd: number): Promise<ReservationHit> {
    return (await this.send(key, { op: 'reserve', id, now, windowMs, limit, leaseEnd })) as ReservationHit
  }

  async confirm(key: string, id: string, at: number, windowMs: number): Promise<void> {
    await this.send(key, { op: 'confirm', id, at, windowMs })
  }

  async cancel(key: string, id: string): Promise<void> {
    await this.send(key, { op: 'cancel', id })
  }

  private async send(key: string, step: Step): Promise<unknown> {
    let response: Response
    try {
      const stub = this.namespace.get(this.namespace.idFromName(key) as never)
      response = await stub.fetch('https://throttle-counter/', { method: 'POST', body: JSON.stringify(step) })
    } catch (error) {
      throw new StoreUnavailable('durable-object', `throttle ${step.op}`, error)
    }
    if (!response.ok) throw new StoreUnavailable('durable-object', `throttle ${step.op}`, new Error(`the counter answered ${response.status}`))
    return response.json()
  }
}
