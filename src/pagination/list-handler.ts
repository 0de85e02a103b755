import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import type { JsonObject } from '../core/openapi-types.js'
import type { Settings } from '../core/settings.js'
import type { Handler, RequestContext } from '../core/view.js'
import { formatResponse } from '../core/format-response.js'
import { checkPageSize } from '../core/page-size-check.js'
import type { OrderingFilter } from './ordering-filter.js'
import type { FilterSet } from './filters/filter-set.js'
import type { SearchFilter } from './filters/search-filter.js'
import { allOf, type Condition } from '../core/filter-condition.js'
import { filterFormHtml } from './filters/filter-form.js'
import { ConfigurationError, ValidationError } from '../core/errors.js'
import { isPromise, promiseOf, type MaybePromise } from '../core/maybe-promise.js'
import type { OrderingField, Page, PageSource, Paginator } from './paginator.js'

/** Options of `listHandler`. */
export interface ListHandlerOptions<T> {
  /** The (filtered) collection for this request. */
  readonly source: (ctx: RequestContext) => PageSource<T> | Promise<PageSource<T>>
  /** Turns one row into its JSON representation. */
  readonly serialize: (row: T, ctx: RequestContext) => unknown
  /**
   * The fields the source can order by (for a `KyselyPageSource`, the keys of its `columns`).
   * With them, the view's paginator is checked when the view is declared: a cursor ordering
   * by a field the source lacks is a `ConfigurationError` at start-up, not a 500 per request.
   */
  readonly fields?: readonly string[]
  /**
   * The JSON Schema of one serialized item, for OpenAPI documents (`openApiDocument`): the
   * operation's response is the view's paginated envelope of such items. @default `{}` (any value)
   */
  readonly itemSchema?: JsonObject
  /**
   * Lets clients order the list (`?ordering=-score,id`) among the filter's fields, on every
   * pagination style; with `fields`, its fields are checked against the source's when the
   * view is declared. The OpenAPI document lists its parameter and allowed values.
   */
  readonly ordering?: OrderingFilter
  /**
   * django-filter's filters (`?score__gte=5`): a value that does not read answers 400 with
   * django-filter's body. With `fields`, its fields are checked against the source's when
   * the view is declared. The OpenAPI document lists every parameter with its type.
   */
  readonly filters?: FilterSet
  /** DRF's `SearchFilter` (`?search=`); its fields are checked as the filters' are. */
  readonly search?: SearchFilter
}

/** Options of `paginatedList`. */
export interface PaginatedListOptions {
  /** Page controls on the HTML page (`false`: none, as for DRF's plain `APIView`). @default true */
  readonly controls?: boolean
  /** An ordering filter applied to `source` (and, for cursor pagination, to the cursor's ordering). */
  readonly ordering?: OrderingFilter
  /** Filters applied to `source` before it is ordered and paginated (a bad value: 400). */
  readonly filters?: FilterSet
  /** A search applied to `source` with the filters. */
  readonly search?: SearchFilter
}

/**
 * `source` restricted to the rows the request's filters and search admit (DRF's filter
 * backends, before the ordering filter): itself when neither applies.
 * @throws ValidationError (400) for a filter value that does not read.
 */
function filteredSource<T>(source: PageSource<T>, ctx: RequestContext, options: PaginatedListOptions): { source: PageSource<T>; regexError: ValidationError | null } {
  const conditions: Condition[] = []
  const filters = options.filters?.conditionFor(ctx.request) ?? null
  if (filters !== null) conditions.push(filters)
  const search = options.search?.conditionFor(ctx.request) ?? null
  if (search !== null) conditions.push(search)
  const condition = allOf(conditions)
  if (condition === null) return { source, regexError: null }
  if (typeof source.filtered !== 'function') {
    throw new ConfigurationError('ERR_FILTER_SET', 'FilterSet and SearchFilter need a source with filtered() (ArrayPageSource, KyselyPageSource)')
  }
  // The answer to the database refusing a client's regular expression: the search parameter's, else (a custom filter's) a bare one.
  let regexError: ValidationError | null = null
  if (search !== null && hasRegex(search)) regexError = new ValidationError({ [options.search?.param ?? 'search']: [INVALID_REGEX] })
  else if (filters !== null && hasRegex(filters)) regexError = new ValidationError(INVALID_REGEX)
  return { source: source.filtered(condition), regexError }
}

const INVALID_REGEX = 'Enter a valid regular expression.'

function hasRegex(condition: Condition): boolean {
  return condition.kind === 'regex' || (('conditions' in condition) && condition.conditions.some(hasRegex))
}

/**
 * PostgreSQL's `invalid_regular_expression` (SQLSTATE 2201B): a `$` search term (or a
 * custom regex filter) the database cannot compile. Django answers it with a 500.
 */
function isInvalidRegex(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '2201B'
}

/** `answer` with the database's refusal of the request's regular expression as `regexError` (a 400). */
function withRegexError(answer: MaybePromise<ApiResponse>, regexError: ValidationError): Promise<ApiResponse> {
  return promiseOf(answer).catch((error: unknown) => {
    throw isInvalidRegex(error) ? regexError : error
  })
}

/**
 * Paginates `source` with `paginator` (or not at all when it is `null` or the page
 * size is off) and answers JSON, or an HTML page with the controls when the client
 * negotiated `text/html`. With `ordering`, the list is first ordered as the request's
 * `?ordering=` asks. The building block of `listHandler` and of plain views (and of
 * handlers in middleware style).
 */
export function paginatedList<T>(
  ctx: RequestContext,
  paginator: Paginator | null,
  unordered: PageSource<T>,
  serialize: (row: T, ctx: RequestContext) => unknown,
  options: PaginatedListOptions = {},
): Promise<ApiResponse> {
  try {
    const answer = listAnswer(ctx, paginator, unordered, serialize, options)
    return promiseOf(answer)
  } catch (error) {
    return Promise.reject(error as Error)
  }
}

/**
 * `paginatedList`'s answer, synchronous when the paginator (and so the source) answered
 * synchronously: what `listHandler` returns, with no promise of its own. May throw.
 */
function listAnswer<T>(
  ctx: RequestContext,
  paginator: Paginator | null,
  unordered: PageSource<T>,
  serialize: (row: T, ctx: RequestContext) => unknown,
  options: PaginatedListOptions,
): MaybePromise<ApiResponse> {
  if (options.filters === undefined && options.search === undefined) return orderedAnswer(ctx, paginator, unordered, serialize, options)
  const { source, regexError } = filteredSource(unordered, ctx, options)
  if (regexError === null) return orderedAnswer(ctx, paginator, source, serialize, options)
  let answer: MaybePromise<ApiResponse>
  try {
    answer = orderedAnswer(ctx, paginator, source, serialize, options)
  } catch (error) {
    answer = Promise.reject(error as Error)
  }
  return withRegexError(answer, regexError)
}

/** `listAnswer` after the filters: the ordering filter, then the page. */
function orderedAnswer<T>(
  ctx: RequestContext,
  paginator: Paginator | null,
  filtered: PageSource<T>,
  serialize: (row: T, ctx: RequestContext) => unknown,
  options: PaginatedListOptions,
): MaybePromise<ApiResponse> {
  let source = filtered
  let ordering: readonly OrderingField[] | null = null
  if (options.ordering !== undefined) ({ source, ordering } = options.ordering.apply(source, ctx.request))
  if (paginator === null) return plainList(ctx, source, serialize, options)
  // Own routes hand their paginator here, not to the policies: checked per request (a few property reads).
  checkPageSize(paginator, ctx.settings.pageSize, 'paginatedList')
  const page = paginator.paginate(source, ctx.request, { defaultPageSize: ctx.settings.pageSize, ordering })
  if (isPromise(page)) return page.then((p) => (p === null ? plainList(ctx, source, serialize, options) : pageAnswer(ctx, paginator, p, serialize, options)))
  return page === null ? plainList(ctx, source, serialize, options) : pageAnswer(ctx, paginator, page, serialize, options)
}

/** DRF: no paginator or no page size → the plain list, a bare JSON array. */
async function plainList<T>(ctx: RequestContext, source: PageSource<T>, serialize: (row: T, ctx: RequestContext) => unknown, options: PaginatedListOptions): Promise<ApiResponse> {
  const rows = await source.all()
  return withFilterForm(ctx, formatResponse(ctx, jsonResponse(200, rows.map((row) => serialize(row, ctx)))), options)
}

/** A list's answer with its filter panel when it is rendered as an HTML page (DRF shows one on list answers only). */
function withFilterForm(ctx: RequestContext, response: ApiResponse, options: PaginatedListOptions): ApiResponse {
  if (ctx.format !== 'html' || (options.filters === undefined && options.search === undefined && options.ordering === undefined)) return response
  return { ...response, filterForm: filterFormHtml(ctx.request, options) }
}

/** One page's answer: its rows serialized, the paginator's body, and the controls for an HTML answer. */
function pageAnswer<T>(ctx: RequestContext, paginator: Paginator, page: Page<T>, serialize: (row: T, ctx: RequestContext) => unknown, options: PaginatedListOptions): ApiResponse {
  const items = page.items
  const data = new Array<unknown>(items.length)
  for (let i = 0; i < items.length; i++) data[i] = serialize(items[i] as T, ctx)
  const response = paginator.paginatedResponse(page, data)
  // Controls only for an HTML answer: a JSON one would build them for nothing.
  const controls =
    ctx.format === 'html' && options.controls !== false && page.displayPageControls ? paginator.toHtml(page, ctx.settings.htmlTemplates) : null
  return withFilterForm(ctx, formatResponse(ctx, response, controls), options)
}

/**
 * A list view's GET (DRF's `ListModelMixin.list`): pagination is applied
 * automatically with the view's `pagination` and `pageSize` settings.
 *
 * @example
 * api.view({
 *   pagination: new CursorPagination({ ordering: '-created' }),
 *   formats: ['json', 'html'],
 *   handlers: { GET: listHandler({ source: () => new ArrayPageSource(items), serialize: (x) => x }) },
 * })
 */
export function listHandler<T>(options: ListHandlerOptions<T>): Handler {
  const { fields, itemSchema, ordering, filters, search } = options
  const listOptions: PaginatedListOptions = {
    ...(ordering === undefined ? {} : { ordering }),
    ...(filters === undefined ? {} : { filters }),
    ...(search === undefined ? {} : { search }),
  }
  const { serialize } = options
  const handle = (ctx: RequestContext): MaybePromise<ApiResponse> => {
    const source = options.source(ctx)
    return isPromise(source)
      ? source.then((s) => listAnswer(ctx, ctx.settings.pagination, s, serialize, listOptions))
      : listAnswer(ctx, ctx.settings.pagination, source, serialize, listOptions)
  }
  const parameters = [...(filters?.openApiParameters() ?? []), ...(search === undefined ? [] : [search.openApiParameter()]), ...(ordering === undefined ? [] : [ordering.openApiParameter()])]
  const openApi = {
    list: itemSchema === undefined ? {} : { item: itemSchema },
    ...(parameters.length === 0 ? {} : { parameters }),
    // A filter value that does not read is django-filter's 400.
    ...(filters === undefined ? {} : { errors: [400] }),
  }
  if (fields === undefined) return Object.assign(handle, { openApi })
  return Object.assign(handle, {
    openApi,
    validate: (settings: Settings, where: string): void => {
      settings.pagination?.validateFields?.(fields, where)
      ordering?.validateFields(fields, where)
      const filtered = [...(filters?.fields ?? []), ...(search?.fields ?? [])].filter((f) => !fields.includes(f))
      if (filtered.length > 0) {
        throw new ConfigurationError('ERR_PAGE_SOURCE_COLUMN', `${where}: the filters use ${[...new Set(filtered)].map((f) => `"${f}"`).join(', ')}, which the source does not declare (its fields: ${fields.join(', ')})`)
      }
    },
  })
}
