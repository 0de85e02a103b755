import type { ApiRequest } from '../core/api-request.js'
import type { MaybePromise } from '../core/maybe-promise.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { HtmlContext, HtmlTemplates, Page, PageSource, PaginateOptions, Paginator } from '../core/paginator.js'
import { resolveTemplate, type ControlTemplate, type TemplateName } from '../core/html/control-templates.js'
import { parsePositiveInt, queryParam, toSafeNumber } from './query-params.js'

/** The options `BasePagination` owns: the page size, how a client may choose it, and the controls. */
export interface BasePaginationOptions {
  /** Items per page; `undefined` takes the view's `pageSize` setting (DRF `PAGE_SIZE`), `null` turns paging off. */
  readonly pageSize?: number | null | undefined
  /** Lets clients choose the page size with this query parameter. @default null (they cannot) */
  readonly pageSizeQueryParam?: string | null
  /** Upper bound for a client-chosen page size (never applied to `pageSize` itself, as in DRF). @default null */
  readonly maxPageSize?: number | null
  /**
   * The HTML controls: a template function, the name of a built-in (`'numbers'`,
   * `'previousNext'`, which an API or view may replace with `htmlTemplates`), or `null`
   * for no controls.
   */
  readonly template?: ControlTemplate | TemplateName | null
}

/**
 * What every pagination style shares (DRF's `BasePagination` plus the page-size logic its
 * styles repeat): the page size for a request, DRF's paginated response
 * `{"count", "next", "previous", "results"}`, and the HTML controls. A style implements
 * `paginate` (fetch one page, build its links) and `htmlContext` (what its template shows);
 * `State` is what its pages carry for those two.
 *
 * @example
 * class FirstPageOnly extends BasePagination<null> {
 *   constructor() { super({ pageSize: 5 }, 'previousNext') }
 *   async paginate<T>(source: PageSource<T>, req: ApiRequest, options?: PaginateOptions) {
 *     const size = this.pageSizeFor(req, options?.defaultPageSize ?? null)
 *     if (size === null) return null
 *     return { items: await source.slice(0, size), count: await source.count(), next: null, previous: null, displayPageControls: false, state: null }
 *   }
 *   htmlContext(page: Page<unknown, null>) { return { previousUrl: page.previous, nextUrl: page.next } }
 * }
 */
export abstract class BasePagination<State = unknown> implements Paginator<State> {
  readonly pageSize: number | null | undefined
  readonly pageSizeQueryParam: string | null
  readonly maxPageSize: number | null
  readonly template: ControlTemplate | TemplateName | null

  /** @param defaultTemplate the style's controls when the options name none. */
  constructor(options: BasePaginationOptions, defaultTemplate: TemplateName) {
    this.pageSize = options.pageSize
    this.pageSizeQueryParam = options.pageSizeQueryParam === '' ? null : (options.pageSizeQueryParam ?? null)
    this.maxPageSize = options.maxPageSize ?? null
    this.template = options.template === undefined ? defaultTemplate : options.template
  }

  /**
   * DRF's `get_page_size` (and `LimitOffsetPagination.get_limit`): the client's size when
   * `pageSizeQueryParam` is set and it sent a strict positive integer (clamped to
   * `maxPageSize`), else the paginator's `pageSize`, else the view's `defaultPageSize`.
   * `null`: paging is off for this request.
   */
  pageSizeFor(req: ApiRequest, defaultPageSize: number | null = null): number | null {
    const fallback = this.pageSize === undefined ? defaultPageSize : this.pageSize
    if (this.pageSizeQueryParam !== null) {
      const raw = queryParam(req.url, this.pageSizeQueryParam)
      if (raw !== null) {
        const size = parsePositiveInt(raw, true, this.maxPageSize)
        if (size !== null) return toSafeNumber(size)
      }
    }
    return fallback
  }

  abstract paginate<T>(source: PageSource<T>, req: ApiRequest, options?: PaginateOptions): MaybePromise<Page<T, State> | null>

  abstract htmlContext(page: Page<unknown, State>): HtmlContext

  /** DRF's paginated body, `{"count", "next", "previous", "results"}`. */
  paginatedResponse(page: Page<unknown, State>, data: readonly unknown[]): ApiResponse {
    return jsonResponse(200, { count: page.count, next: page.next, previous: page.previous, results: data })
  }

  /** The controls markup from this style's template (or the API's replacement of it); `''` when off. */
  toHtml(page: Page<unknown, State>, templates?: HtmlTemplates): string {
    const template = resolveTemplate(this.template, templates)
    return template === null ? '' : template(this.htmlContext(page))
  }
}
