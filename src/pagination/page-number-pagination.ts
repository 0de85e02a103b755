import type { ApiRequest } from '../core/api-request.js'
import { NotFound } from '../core/errors.js'
import { BasePagination, type BasePaginationOptions } from './base-pagination.js'
import { displayedPageNumbers, pageLinks } from './page-links.js'
import type { HtmlContext, Page, PageSource, PaginateOptions } from './paginator.js'
import { absoluteUrl, parsePythonInt, queryParam, removeQueryParam, replaceQueryParam } from './query-params.js'

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
}

/** Page-number state a custom response or template can read from `page.state`. */
export interface PageNumberState {
  readonly pageNumber: number
  readonly numPages: number
  readonly pageSize: number
  readonly url: string
}

/**
 * DRF's `PageNumberPagination`: `?page=N`, a `count`, and next/previous links that
 * keep every other query parameter. An invalid page is `404 {"detail": "Invalid page."}`.
 *
 * @example
 * api.view({ pagination: new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25 }), … })
 */
export class PageNumberPagination extends BasePagination<PageNumberState> {
  readonly pageQueryParam: string
  readonly lastPageStrings: readonly string[]
  readonly invalidPageMessage: string

  constructor(options: PageNumberPaginationOptions = {}) {
    super(options, 'numbers')
    this.pageQueryParam = options.pageQueryParam ?? 'page'
    this.lastPageStrings = Object.freeze([...(options.lastPageStrings ?? ['last'])])
    this.invalidPageMessage = options.invalidPageMessage ?? 'Invalid page.'
  }

  async paginate<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions = {}): Promise<Page<T, PageNumberState> | null> {
    const pageSize = this.pageSizeFor(req, options.defaultPageSize ?? null)
    if (pageSize === null || pageSize <= 0) return null
    const count = await source.count()
    const numPages = Math.ceil(Math.max(1, count) / pageSize)
    const raw = queryParam(req.url, this.pageQueryParam)
    const pageNumber = this.pageNumber(raw, numPages, count)
    const bottom = (pageNumber - 1) * pageSize
    const items = await source.slice(bottom, Math.min(pageSize, count - bottom))
    const url = absoluteUrl(req.url)
    const next = pageNumber < numPages ? replaceQueryParam(url, this.pageQueryParam, pageNumber + 1) : null
    const previous =
      pageNumber <= 1
        ? null
        : pageNumber - 1 === 1
          ? removeQueryParam(url, this.pageQueryParam)
          : replaceQueryParam(url, this.pageQueryParam, pageNumber - 1)
    const state: PageNumberState = { pageNumber, numPages, pageSize, url }
    return {
      items,
      count,
      next,
      previous,
      displayPageControls: numPages > 1 && this.template !== null,
      state,
    }
  }

  /** Django's `Paginator.validate_number`, with DRF's `last_page_strings` and 404. */
  private pageNumber(raw: string | null, numPages: number, count: number): number {
    if (raw === null) return 1
    if (this.lastPageStrings.includes(raw)) return numPages
    const invalid = (message: string): NotFound =>
      new NotFound(this.invalidPageMessage.replaceAll('{page_number}', raw).replaceAll('{message}', message))
    const value = parsePythonInt(raw)
    if (value === null) throw invalid('That page number is not an integer')
    if (value < 1n) throw invalid('That page number is less than 1')
    if (value > BigInt(numPages) && !(value === 1n && count === 0)) throw invalid('That page contains no results')
    return Number(value)
  }

  htmlContext(page: Page<unknown, PageNumberState>): HtmlContext {
    const state = page.state
    const urlOf = (n: number): string =>
      n === 1 ? removeQueryParam(state.url, this.pageQueryParam) : replaceQueryParam(state.url, this.pageQueryParam, n)
    const numbers = displayedPageNumbers(state.pageNumber, state.numPages)
    return { previousUrl: page.previous, nextUrl: page.next, pageLinks: pageLinks(numbers, state.pageNumber, urlOf) }
  }
}
