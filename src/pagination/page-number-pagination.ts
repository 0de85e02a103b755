import type { ApiRequest } from '../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import { NotFound } from '../core/errors.js'
import { resolveTemplate, type ControlTemplate, type TemplateName } from './control-templates.js'
import { displayedPageNumbers, pageLinks } from './page-links.js'
import type { HtmlContext, Page, PageSource, PaginateOptions, Paginator, TemplateOption } from './paginator.js'
import {
  absoluteUrl,
  parsePositiveInt,
  parsePythonInt,
  queryParam,
  removeQueryParam,
  replaceQueryParam,
  toSafeNumber,
} from './query-params.js'

/** Options of `PageNumberPagination` (spec 4.3), with DRF 3.14's defaults. */
export interface PageNumberPaginationOptions extends TemplateOption {
  /** Items per page. @default the view's `pageSize` setting (DRF `PAGE_SIZE`) */
  readonly pageSize?: number | null
  /** @default 'page' */
  readonly pageQueryParam?: string
  /** Lets clients choose the page size with this parameter. @default null (they cannot) */
  readonly pageSizeQueryParam?: string | null
  /** Upper bound for a client-chosen page size (only with `pageSizeQueryParam`). @default null */
  readonly maxPageSize?: number | null
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

/** Reads the client's page size the way DRF's `get_page_size` does (shared with cursor pagination). */
export function clientPageSize(
  req: ApiRequest,
  param: string | null,
  max: number | null,
  fallback: number | null,
): number | null {
  if (param !== null) {
    const raw = queryParam(req.url, param)
    if (raw !== null) {
      const size = parsePositiveInt(raw, true, max)
      if (size !== null) return toSafeNumber(size)
    }
  }
  return fallback
}

/**
 * DRF's `PageNumberPagination`: `?page=N`, a `count`, and next/previous links that
 * keep every other query parameter. An invalid page is `404 {"detail": "Invalid page."}`.
 *
 * @example
 * api.view({ pagination: new PageNumberPagination({ pageSize: 10, pageSizeQueryParam: 'page_size', maxPageSize: 25 }), … })
 */
export class PageNumberPagination implements Paginator {
  readonly pageSize: number | null | undefined
  readonly pageQueryParam: string
  readonly pageSizeQueryParam: string | null
  readonly maxPageSize: number | null
  readonly lastPageStrings: readonly string[]
  readonly template: ControlTemplate | TemplateName | null
  readonly invalidPageMessage: string

  constructor(options: PageNumberPaginationOptions = {}) {
    this.pageSize = options.pageSize
    this.pageQueryParam = options.pageQueryParam ?? 'page'
    this.pageSizeQueryParam = options.pageSizeQueryParam ?? null
    this.maxPageSize = options.maxPageSize ?? null
    this.lastPageStrings = Object.freeze([...(options.lastPageStrings ?? ['last'])])
    this.template = options.template === undefined ? 'numbers' : options.template
    this.invalidPageMessage = options.invalidPageMessage ?? 'Invalid page.'
  }

  /** The page size for this request, or `null` (pagination off). */
  pageSizeFor(req: ApiRequest, defaultPageSize: number | null = null): number | null {
    const base = this.pageSize === undefined ? defaultPageSize : this.pageSize
    return clientPageSize(req, this.pageSizeQueryParam, this.maxPageSize, base)
  }

  async paginate<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions = {}): Promise<Page<T> | null> {
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

  paginatedResponse(page: Page<unknown>, data: readonly unknown[]): ApiResponse {
    return jsonResponse(200, { count: page.count, next: page.next, previous: page.previous, results: data })
  }

  htmlContext(page: Page<unknown>): HtmlContext {
    const state = page.state as unknown as PageNumberState
    const urlOf = (n: number): string =>
      n === 1 ? removeQueryParam(state.url, this.pageQueryParam) : replaceQueryParam(state.url, this.pageQueryParam, n)
    const numbers = displayedPageNumbers(state.pageNumber, state.numPages)
    return { previousUrl: page.previous, nextUrl: page.next, pageLinks: pageLinks(numbers, state.pageNumber, urlOf) }
  }

  toHtml(page: Page<unknown>): string {
    const template = resolveTemplate(this.template)
    return template === null ? '' : template(this.htmlContext(page))
  }
}
