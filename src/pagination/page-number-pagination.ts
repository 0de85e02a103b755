import type { ApiRequest } from '../core/api-request.js'
import { NotFound } from '../core/errors.js'
import { isPromise, type MaybePromise } from '../core/maybe-promise.js'
import type { JsonObject, OpenApiPaginatedResponse, OpenApiParameter } from '../core/openapi-types.js'
import { BasePagination, type BasePaginationOptions } from './base-pagination.js'
import { envelopeSchema, pageSizeParameter, queryParameter } from './openapi-schemas.js'
import { Counter, type CountOutcome, type CountStrategy } from './count-strategy.js'
import { displayedPageNumbers, pageLinks } from './page-links.js'
import type { HtmlContext, Page, PageSource, PaginateOptions } from './paginator.js'
import { absoluteUrl, parsePythonInt, queryParam, queryParamTemplate, removeQueryParam, replaceQueryParam } from './query-params.js'

/** Options of `PageNumberPagination` (spec 4.3), with DRF 3.14's defaults; the controls default to `'numbers'`. */
export interface PageNumberPaginationOptions extends BasePaginationOptions {
  /** @default 'page' */
  readonly pageQueryParam?: string
  /** Page values that mean "the last page"; exact, case-sensitive. @default ['last'] */
  readonly lastPageStrings?: readonly string[]
  /**
   * The 404 message; `{page_number}` (the raw value) and `{message}` (the paginator's
   * reason, Django's wording) are substituted. @default 'Invalid page.'
   */
  readonly invalidPageMessage?: string
  /**
   * How the collection is counted (docs/pagination.md, "Count strategies"): `'exact'`,
   * `{ capped: N }`, `'estimated'`, `{ cachedMs: T }` or `'none'`. @default 'exact'
   */
  readonly count?: CountStrategy
}

/** Page-number state a custom response or template can read from `page.state`. */
export interface PageNumberState {
  readonly pageNumber: number
  /**
   * The pages the controls number: all of them when the count is exact; otherwise the
   * pages known to exist (up to the capped count, or up to the next page).
   */
  readonly numPages: number
  readonly pageSize: number
  readonly url: string
  /** False when `count` is a lower bound, an estimate or `null` (see the `count` option). */
  readonly countExact: boolean
}

/** No collection has this many rows: a page starting beyond it is out of range without a query. */
const MAX_ROWS = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * DRF's `PageNumberPagination`: `?page=N`, a `count`, and next/previous links that
 * keep every other query parameter. An invalid page is `404 {"detail": "Invalid page."}`.
 *
 * For a numeric page the count and the page's rows are asked for together (the rows of
 * page N do not depend on the count); the page number is then checked against the count
 * exactly as DRF checks it, and the rows of a page out of range are discarded. `last`
 * needs the count first.
 *
 * @example
 * api.view({ pagination: new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25 }), … })
 */
export class PageNumberPagination extends BasePagination<PageNumberState> {
  readonly pageQueryParam: string
  readonly lastPageStrings: readonly string[]
  readonly invalidPageMessage: string
  /** The `count` option (frozen). */
  readonly countStrategy: CountStrategy
  private readonly counter: Counter

  constructor(options: PageNumberPaginationOptions = {}) {
    super(options, 'numbers')
    this.pageQueryParam = options.pageQueryParam ?? 'page'
    this.lastPageStrings = Object.freeze([...(options.lastPageStrings ?? ['last'])])
    this.invalidPageMessage = options.invalidPageMessage ?? 'Invalid page.'
    this.counter = new Counter(options.count, 'PageNumberPagination')
    this.countStrategy = this.counter.strategy
  }

  /**
   * The request's page: synchronous when the source answered synchronously, else the source's
   * own promise (no async wrapper around it). A refusal is always a rejection, never a throw.
   */
  paginate<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions = {}): MaybePromise<Page<T, PageNumberState> | null> {
    try {
      return this.pageOf(source, req, options)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  private pageOf<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions): MaybePromise<Page<T, PageNumberState> | null> {
    const pageSize = this.pageSizeFor(req, options.defaultPageSize ?? null)
    if (pageSize === null || pageSize <= 0) return null
    const raw = queryParam(req.url, this.pageQueryParam)
    if (raw !== null && this.lastPageStrings.includes(raw)) return this.lastPage(source, req, raw, pageSize)

    // Django's validate_number, in its order: an integer, at least 1, then within the count.
    let requested = 1n
    if (raw !== null) {
      const value = parsePythonInt(raw)
      if (value === null) throw this.invalid(raw, 'That page number is not an integer')
      if (value < 1n) throw this.invalid(raw, 'That page number is less than 1')
      requested = value
    }
    const bottomBig = (requested - 1n) * BigInt(pageSize)
    if (bottomBig > MAX_ROWS) throw this.invalid(raw, 'That page contains no results')
    const pageNumber = Number(requested)
    const bottom = Number(bottomBig)
    const outcome = this.counter.count(source)
    const rows: MaybePromise<readonly T[]> = source.slice(bottom, this.counter.lookahead ? pageSize + 1 : pageSize)
    if (!isPromise(outcome) && !isPromise(rows)) return this.numbered(req, raw, outcome, rows, pageNumber, bottom, pageSize)
    return Promise.all([outcome, rows]).then(([o, r]) => this.numbered(req, raw, o, r, pageNumber, bottom, pageSize))
  }

  /** `?page=last`: the last page's number is the count's, so count first, then read that page. */
  private async lastPage<T>(source: PageSource<T>, req: ApiRequest, raw: string, pageSize: number): Promise<Page<T, PageNumberState>> {
    const outcome = await this.counter.count(source)
    // Without an exact count there is no known last page: `last` is then not a page number.
    if (!outcome.exact) throw this.invalid(raw, 'That page number is not an integer')
    const numPages = Math.ceil(Math.max(1, outcome.count) / pageSize)
    const bottom = (numPages - 1) * pageSize
    const items = await source.slice(bottom, Math.min(pageSize, outcome.count - bottom))
    return this.page(req, items, outcome.count, true, numPages, numPages, pageSize, false)
  }

  private invalid(raw: string | null, message: string): NotFound {
    return new NotFound(this.invalidPageMessage.replaceAll('{page_number}', raw ?? '').replaceAll('{message}', message))
  }

  /** A numbered page once its count and rows are known: checked against the count as DRF checks it. */
  private numbered<T>(
    req: ApiRequest,
    raw: string | null,
    outcome: CountOutcome,
    rows: readonly T[],
    pageNumber: number,
    bottom: number,
    pageSize: number,
  ): Page<T, PageNumberState> {
    if (outcome.exact) {
      const { count } = outcome
      const numPages = Math.ceil(Math.max(1, count) / pageSize)
      if (pageNumber > numPages && !(pageNumber === 1 && count === 0)) throw this.invalid(raw, 'That page contains no results')
      // Django slices [bottom:min(bottom + size, count)]: the count decides, as in DRF.
      const shown = Math.max(0, Math.min(pageSize, count - bottom))
      const items = rows.length <= shown ? rows : rows.slice(0, shown)
      return this.page(req, items, count, true, pageNumber, numPages, pageSize, pageNumber < numPages)
    }

    const items = rows.slice(0, pageSize)
    const hasNext = rows.length > pageSize
    // No count to check the number against: a page exists when it has rows (page 1 always does).
    if (items.length === 0 && pageNumber > 1) throw this.invalid(raw, 'That page contains no results')
    const seen = bottom + items.length
    // The final page knows the exact total; elsewhere the count is never below what this page proves.
    const lower = hasNext ? seen + 1 : seen
    const count = outcome.base === null ? null : hasNext ? Math.max(outcome.base, lower) : seen
    const known = Math.max(outcome.proven, lower)
    const numPages = Math.max(1, Math.ceil(known / pageSize))
    return this.page(req, items, count, outcome.base !== null && !hasNext, pageNumber, numPages, pageSize, hasNext)
  }

  private page<T>(
    req: ApiRequest,
    items: readonly T[],
    count: number | null,
    countExact: boolean,
    pageNumber: number,
    numPages: number,
    pageSize: number,
    hasNext: boolean,
  ): Page<T, PageNumberState> {
    const url = absoluteUrl(req.url)
    // The query is split around the page parameter once, for both links.
    const links = hasNext || pageNumber > 1 ? queryParamTemplate(url, this.pageQueryParam) : null
    const next = links !== null && hasNext ? links.replace(pageNumber + 1) : null
    const previous = links === null || pageNumber <= 1 ? null : pageNumber - 1 === 1 ? links.remove() : links.replace(pageNumber - 1)
    const state: PageNumberState = { pageNumber, numPages, pageSize, url, countExact }
    return {
      items,
      count,
      next,
      previous,
      displayPageControls: numPages > 1 && this.template !== null,
      state,
    }
  }

  /** DRF's parameters: the page number, and the page size when clients may choose it. */
  openApiParameters(): readonly OpenApiParameter[] {
    // A number, or one of the words naming the last page (`?page=last`).
    const schema = { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: [...this.lastPageStrings] }] }
    const page = queryParameter(this.pageQueryParam, 'A page number within the paginated result set.', schema)
    return this.pageSizeQueryParam === null ? [page] : [page, pageSizeParameter(this.pageSizeQueryParam, this.maxPageSize)]
  }

  /** DRF's `{count, next, previous, results}` (`count` nullable under `count: 'none'`). */
  openApiResponse(item: JsonObject): OpenApiPaginatedResponse {
    const p = this.pageQueryParam
    return { schema: envelopeSchema(item, this.countStrategy === 'none' ? 'nullable' : 'integer', `${p}=4`, `${p}=2`), name: 'Page' }
  }

  htmlContext(page: Page<unknown, PageNumberState>): HtmlContext {
    const state = page.state
    const urlOf = (n: number): string =>
      n === 1 ? removeQueryParam(state.url, this.pageQueryParam) : replaceQueryParam(state.url, this.pageQueryParam, n)
    const numbers = displayedPageNumbers(state.pageNumber, state.numPages)
    return { previousUrl: page.previous, nextUrl: page.next, pageLinks: pageLinks(numbers, state.pageNumber, urlOf) }
  }
}
