import { ConfigurationError } from '../core/errors.js'
import { thenMaybe, type MaybePromise } from '../core/maybe-promise.js'
import { CountCache } from './count-cache.js'
import type { PageSource } from './paginator.js'

/**
 * How a numbered style (`PageNumberPagination`, `LimitOffsetPagination`) counts the
 * collection. docs/pagination.md ("Count strategies") says how `count`, `last`, `next`
 * and the HTML controls behave under each.
 *
 * - `'exact'`: `count()` on every request, as DRF does.
 * - `{ capped: N }`: count at most N + 1 rows (`countAtMost`). Up to N rows, exactly
 *   `'exact'`; beyond, `count` is a lower bound (N, or more where a page shows more).
 * - `'estimated'`: the source's `estimatedCount()` (PostgreSQL planner statistics); a
 *   source without one (SQLite) counts exactly.
 * - `{ cachedMs: T }`: an exact count reused for T ms per `countKey()` (statement text and
 *   parameters), in this process, at most `maxEntries` counts (least recently used first out).
 * - `'none'`: never count; `count` is `null`, `next` comes from reading one row more.
 */
export type CountStrategy =
  | 'exact'
  | 'estimated'
  | 'none'
  | { readonly capped: number }
  | { readonly cachedMs: number; readonly maxEntries?: number; readonly now?: () => number }

/** What the count phase of one request learnt. */
export type CountOutcome =
  /** The collection's size (under `cachedMs`, as of at most T ms ago). */
  | { readonly exact: true; readonly count: number }
  /**
   * No exact size. `base`: what `count` reports away from the final page (the cap, the
   * estimate; `null` under `'none'`). `proven`: rows known to exist (the cap, else 0).
   */
  | { readonly exact: false; readonly base: number | null; readonly proven: number }

const exactOutcome = (count: number): CountOutcome => ({ exact: true, count })

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null

/**
 * A count strategy resolved once, when a paginator is built: validated, with its cache.
 * Shared by concurrent requests; it keeps no per-request state.
 */
export class Counter {
  readonly strategy: CountStrategy
  /**
   * True when the outcome may be inexact: the page then reads one row more than it shows,
   * so `next` and the page's existence come from the rows, not from a count.
   */
  readonly lookahead: boolean
  private readonly run: <T>(source: PageSource<T>) => MaybePromise<CountOutcome>

  /** @param where names the paginator option in a `ConfigurationError`. */
  constructor(strategy: CountStrategy | undefined, where: string) {
    const s: unknown = strategy === undefined ? 'exact' : strategy
    const bad = (why: string): ConfigurationError =>
      new ConfigurationError('ERR_INVALID_SETTING', `${where} option "count": ${why}, got ${JSON.stringify(s) ?? String(s)}`)
    this.lookahead = s === 'estimated' || s === 'none' || (isRecord(s) && 'capped' in s)
    if (s === 'exact') {
      // Synchronous when the source counts synchronously: no promise of its own.
      this.run = (source) => {
        const count: MaybePromise<number> = source.count()
        return thenMaybe(count, exactOutcome)
      }
    } else if (s === 'none') {
      this.run = async () => ({ exact: false, base: null, proven: 0 })
    } else if (s === 'estimated') {
      this.run = async (source) => {
        const estimate = source.estimatedCount === undefined ? null : await source.estimatedCount()
        if (estimate === null || !Number.isFinite(estimate)) return { exact: true, count: await source.count() }
        return { exact: false, base: Math.max(0, Math.round(estimate)), proven: 0 }
      }
    } else if (isRecord(s) && Object.keys(s).length === 1 && 'capped' in s) {
      const cap = s['capped']
      if (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap < 1 || cap >= Number.MAX_SAFE_INTEGER) {
        throw bad('capped must be a positive integer')
      }
      this.run = async (source) => {
        const n = source.countAtMost === undefined ? Math.min(await source.count(), cap + 1) : await source.countAtMost(cap + 1)
        return n <= cap ? { exact: true, count: n } : { exact: false, base: cap, proven: cap }
      }
    } else if (isRecord(s) && 'cachedMs' in s && Object.keys(s).every((k) => k === 'cachedMs' || k === 'maxEntries' || k === 'now')) {
      const { cachedMs, maxEntries, now } = s
      if (typeof cachedMs !== 'number' || !Number.isFinite(cachedMs) || cachedMs <= 0) throw bad('cachedMs must be a positive number of milliseconds')
      if (maxEntries !== undefined && (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1)) {
        throw bad('maxEntries must be a positive integer')
      }
      if (now !== undefined && typeof now !== 'function') throw bad('now must be a function')
      const cache = new CountCache({
        ttlMs: cachedMs,
        ...(maxEntries === undefined ? {} : { maxEntries }),
        ...(now === undefined ? {} : { now: now as () => number }),
      })
      this.run = async (source) => {
        const key = source.countKey?.() ?? null
        const count = key === null ? await source.count() : await cache.get(key, async () => source.count())
        return { exact: true, count }
      }
    } else {
      throw bad("expected 'exact', 'estimated', 'none', { capped: N } or { cachedMs: T }")
    }
    this.strategy = Object.freeze(isRecord(s) ? { ...s } : s) as CountStrategy
  }

  /** Counts `source` the strategy's way (synchronously when the source answered synchronously). */
  count<T>(source: PageSource<T>): MaybePromise<CountOutcome> {
    return this.run(source)
  }
}
