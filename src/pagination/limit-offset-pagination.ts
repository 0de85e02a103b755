import type { ApiRequest } from '../core/api-request.js'
import type { ControlTemplate, TemplateName } from '../html/control-templates.js'
import { BasePagination } from './base-pagination.js'
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
}

/** Limit/offset state a custom response or template can read from `page.state`. */
export interface LimitOffsetState {
  readonly limit: number
  /** Exact, even far beyond the end (DRF has no upper bound on offset). */
  readonly offset: bigint
  readonly url: string
}

/** Python's floor division rounded up the way DRF's `_divide_with_ceil` does. */
function divideWithCeil(a: bigint, b: bigint): bigint {
  const floor = a / b - (a % b !== 0n && a < 0n !== b < 0n ? 1n : 0n)
  const mod = a - floor * b
  return mod !== 0n ? floor + 1n : floor
}

/**
 * DRF's `LimitOffsetPagination`: `?limit=N&offset=M`, a `count`, and links that always
 * write the effective `limit`. Bad values fall back silently (limit → default, offset → 0).
 */
export class LimitOffsetPagination extends BasePagination<LimitOffsetState> {
  readonly defaultLimit: number | null | undefined
  readonly limitQueryParam: string
  readonly offsetQueryParam: string
  readonly maxLimit: number | null

  constructor(options: LimitOffsetPaginationOptions = {}) {
    const limitQueryParam = options.limitQueryParam ?? 'limit'
    const template = options.template === undefined ? {} : { template: options.template }
    super({ pageSize: options.defaultLimit, pageSizeQueryParam: limitQueryParam, maxPageSize: options.maxLimit ?? null, ...template }, 'numbers')
    this.defaultLimit = options.defaultLimit
    this.limitQueryParam = limitQueryParam
    this.offsetQueryParam = options.offsetQueryParam ?? 'offset'
    this.maxLimit = options.maxLimit ?? null
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
    const count = await source.count()
    const offset = this.offsetFor(req)
    // No query for an empty set or an offset past the end (also keeps huge offsets out of SQL).
    const items = count === 0 || offset > BigInt(count) ? [] : await source.slice(Number(offset), limit)
    const url = absoluteUrl(req.url)
    const big = BigInt(limit)
    let next: string | null = null
    if (offset + big < BigInt(count)) {
      next = replaceQueryParam(replaceQueryParam(url, this.limitQueryParam, limit), this.offsetQueryParam, offset + big)
    }
    let previous: string | null = null
    if (offset > 0n) {
      const withLimit = replaceQueryParam(url, this.limitQueryParam, limit)
      previous =
        offset - big <= 0n
          ? removeQueryParam(withLimit, this.offsetQueryParam)
          : replaceQueryParam(withLimit, this.offsetQueryParam, offset - big)
    }
    const state: LimitOffsetState = { limit, offset, url }
    return { items, count, next, previous, displayPageControls: count > limit && this.template !== null, state }
  }

  htmlContext(page: Page<unknown, LimitOffsetState>): HtmlContext {
    const { limit, offset, url } = page.state
    const big = BigInt(limit)
    const count = BigInt(page.count ?? 0)
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
