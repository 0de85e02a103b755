import type { ApiRequest } from '../core/api-request.js'
import type { ControlTemplate, TemplateName } from '../core/html/control-templates.js'
import type { JsonObject, OpenApiPaginatedResponse, OpenApiParameter } from '../core/openapi-types.js'
import { BasePagination } from './base-pagination.js'
import { envelopeSchema, pageSizeParameter, queryParameter } from './openapi-schemas.js'
import { Counter, type CountStrategy } from './count-strategy.js'
import { displayedPageNumbers, pageLinks } from './page-links.js'
import type { HtmlContext, Page, PageSource, PaginateOptions } from './paginator.js'
import { absoluteUrl, parsePositiveInt, queryParam, removeQueryParam, replaceQueryParam } from './query-params.js'

/**
 * Options of `LimitOffsetPagination` (spec 4.3), with DRF 3.14's defaults and names. The
 * limit is the page size: `defaultLimit`, `limitQueryParam` and `maxLimit` are
 * `BasePagination`'s `pageSize`, `pageSizeQueryParam` and `maxPageSize`.
 */
export interface LimitOffsetPaginationOptions {
  /** The HTML controls (see `BasePaginationOptions.template`). @default 'numbers' */
  readonly template?: ControlTemplate | TemplateName | null
  /** Limit when the client sends none. @default the view's `pageSize` setting (DRF `PAGE_SIZE`) */
  readonly defaultLimit?: number | null
  /** @default 'limit' */
  readonly limitQueryParam?: string
  /** @default 'offset' */
  readonly offsetQueryParam?: string
  /** Upper bound for a client-chosen limit (never applied to `defaultLimit`, as in DRF). @default null */
  readonly maxLimit?: number | null
  /**
   * How the collection is counted (docs/pagination.md, "Count strategies"): `'exact'`,
   * `{ capped: N }`, `'estimated'`, `{ cachedMs: T }` or `'none'`. @default 'exact'
   */
  readonly count?: CountStrategy
}

/** Limit/offset state a custom response or template can read from `page.state`. */
export interface LimitOffsetState {
  readonly limit: number
  /** Exact, even far beyond the end (DRF has no upper bound on offset). */
  readonly offset: bigint
  readonly url: string
  /**
   * The count the controls number pages by: `count` when it is exact; otherwise the rows
   * known to exist (the capped count, or up to the row after this page).
   */
  readonly knownCount: number
  /** False when `count` is a lower bound, an estimate or `null` (see the `count` option). */
  readonly countExact: boolean
}

/** Offsets beyond this are past the end of any collection: no query is sent for them. */
const MAX_ROWS = BigInt(Number.MAX_SAFE_INTEGER)

/** Python's floor division rounded up the way DRF's `_divide_with_ceil` does. */
function divideWithCeil(a: bigint, b: bigint): bigint {
  const floor = a / b - (a % b !== 0n && a < 0n !== b < 0n ? 1n : 0n)
  const mod = a - floor * b
  return mod !== 0n ? floor + 1n : floor
}

/**
 * DRF's `LimitOffsetPagination`: `?limit=N&offset=M`, a `count`, and links that always
 * write the effective `limit`. Bad values fall back silently (limit → default, offset → 0).
 * The count and the page's rows are asked for together: the rows never depend on the count.
 */
export class LimitOffsetPagination extends BasePagination<LimitOffsetState> {
  readonly defaultLimit: number | null | undefined
  readonly limitQueryParam: string
  readonly offsetQueryParam: string
  readonly maxLimit: number | null
  /** The `count` option (frozen). */
  readonly countStrategy: CountStrategy
  private readonly counter: Counter

  constructor(options: LimitOffsetPaginationOptions = {}) {
    const limitQueryParam = options.limitQueryParam ?? 'limit'
    const template = options.template === undefined ? {} : { template: options.template }
    super({ pageSize: options.defaultLimit, pageSizeQueryParam: limitQueryParam, maxPageSize: options.maxLimit ?? null, ...template }, 'numbers')
    this.defaultLimit = options.defaultLimit
    this.limitQueryParam = limitQueryParam
    this.offsetQueryParam = options.offsetQueryParam ?? 'offset'
    this.maxLimit = options.maxLimit ?? null
    this.counter = new Counter(options.count, 'LimitOffsetPagination')
    this.countStrategy = this.counter.strategy
  }

  /** DRF's `get_limit`: a strict positive integer clamped to `maxLimit`, else the default (`pageSizeFor`). */
  limitFor(req: ApiRequest, defaultPageSize: number | null = null): number | null {
    return this.pageSizeFor(req, defaultPageSize)
  }

  /** DRF's `get_offset`: a non-negative integer, else 0. */
  offsetFor(req: ApiRequest): bigint {
    const raw = queryParam(req.url, this.offsetQueryParam)
    return raw === null ? 0n : (parsePositiveInt(raw) ?? 0n)
  }

  async paginate<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions = {}): Promise<Page<T, LimitOffsetState> | null> {
    const limit = this.limitFor(req, options.defaultPageSize ?? null)
    if (limit === null || limit <= 0) return null
    const offset = this.offsetFor(req)
    const fetch = this.counter.lookahead ? limit + 1 : limit
    const noRows: Promise<readonly T[]> = Promise.resolve([])
    const [outcome, rows] = await Promise.all([this.counter.count(source), offset > MAX_ROWS ? noRows : source.slice(Number(offset), fetch)])
    const big = BigInt(limit)
    let items = rows.slice(0, limit)
    let hasNext: boolean
    let count: number | null
    let knownCount: number
    let countExact: boolean
    if (outcome.exact) {
      // DRF: an empty list for an empty set or an offset past the end, the slice otherwise.
      count = outcome.count
      if (count === 0 || offset > BigInt(count)) items = []
      hasNext = offset + big < BigInt(count)
      knownCount = count
      countExact = true
    } else {
      hasNext = rows.length > limit
      const seen = Number(offset) + items.length
      if (hasNext) {
        // The count is never below what this page proves.
        count = outcome.base === null ? null : Math.max(outcome.base, seen + 1)
        knownCount = Math.max(outcome.proven, seen + 1)
        countExact = false
      } else if (items.length > 0 || offset === 0n) {
        // The final page: the exact total.
        count = outcome.base === null ? null : seen
        knownCount = seen
        countExact = outcome.base !== null
      } else {
        // Past the end: the total is at most the offset.
        const cap = (n: number): number => (offset < BigInt(n) ? Number(offset) : n)
        count = outcome.base === null ? null : cap(outcome.base)
        knownCount = cap(outcome.proven)
        countExact = false
      }
    }
    const url = absoluteUrl(req.url)
    const next = hasNext ? replaceQueryParam(replaceQueryParam(url, this.limitQueryParam, limit), this.offsetQueryParam, offset + big) : null
    let previous: string | null = null
    if (offset > 0n) {
      const withLimit = replaceQueryParam(url, this.limitQueryParam, limit)
      previous =
        offset - big <= 0n
          ? removeQueryParam(withLimit, this.offsetQueryParam)
          : replaceQueryParam(withLimit, this.offsetQueryParam, offset - big)
    }
    const state: LimitOffsetState = { limit, offset, url, knownCount, countExact }
    return { items, count, next, previous, displayPageControls: knownCount > limit && this.template !== null, state }
  }

  /** DRF's parameters: `limit` and `offset`. */
  openApiParameters(): readonly OpenApiParameter[] {
    return [
      pageSizeParameter(this.limitQueryParam, this.maxLimit),
      queryParameter(this.offsetQueryParam, 'The initial index from which to return the results.', { type: 'integer', minimum: 0 }),
    ]
  }

  /** DRF's `{count, next, previous, results}` (`count` nullable under `count: 'none'`). */
  openApiResponse(item: JsonObject): OpenApiPaginatedResponse {
    const l = this.limitQueryParam
    const o = this.offsetQueryParam
    const count = this.countStrategy === 'none' ? 'nullable' : 'integer'
    return { schema: envelopeSchema(item, count, `${o}=400&${l}=100`, `${o}=200&${l}=100`), name: 'OffsetPage' }
  }

  htmlContext(page: Page<unknown, LimitOffsetState>): HtmlContext {
    const { limit, offset, url } = page.state
    const big = BigInt(limit)
    const count = BigInt(page.state.knownCount)
    let current = divideWithCeil(offset, big) + 1n
    let final = divideWithCeil(count - offset, big) + divideWithCeil(offset, big)
    if (final < 1n) final = 1n
    if (current > final) current = final
    const urlOf = (n: number): string =>
      n === 1
        ? removeQueryParam(url, this.offsetQueryParam)
        : replaceQueryParam(url, this.offsetQueryParam, offset + (BigInt(n) - current) * big)
    // Page numbers beyond 2^53 cannot be shown meaningfully; they only arise from absurd offsets.
    const cur = Number(current)
    const numbers = displayedPageNumbers(cur, Number(final))
    return { previousUrl: page.previous, nextUrl: page.next, pageLinks: pageLinks(numbers, cur, urlOf) }
  }
}
