import type { Condition } from './filter-condition.js'
import type { ApiRequest } from './api-request.js'
import type { ApiResponse } from './api-response.js'
import type { JsonObject, OpenApiPaginatedResponse, OpenApiParameter } from './openapi-shapes.js'
import type { MaybePromise } from './maybe-promise.js'

/**
 * Where a paginator reads rows from. Arrays (`ArrayPageSource`) and Kysely queries
 * (`KyselyPageSource`) implement it; so can anything else.
 *
 * `count`, `slice` and `all` are required. The other methods serve the cheaper count
 * strategies of the numbered styles (`count: { capped }`, `'estimated'`, `{ cachedMs }`);
 * a source without them still works under every strategy, at the cost of an exact count.
 * A paginator may call `count` (or its variants) and `slice` at the same time: a source
 * must not assume one finishes before the other starts.
 */
export interface PageSource<T> {
  /**
   * The size of the whole (filtered) collection. May answer synchronously (a source on a
   * synchronous driver, as a prepared source on SQLite: no promise per page) or with a
   * promise; callers accept both. A failure should be a rejected promise.
   */
  count(): MaybePromise<number>
  /** Rows `offset … offset + limit - 1` in the collection's own order; synchronous or a promise, as `count`. */
  slice(offset: number, limit: number): MaybePromise<readonly T[]>
  /** Every row, for views whose pagination is off. */
  all(): Promise<readonly T[]>
  /**
   * `min(count(), limit)`, reading at most `limit` rows (SQL: a `LIMIT` sub-select under
   * the `count(*)`). Used by `count: { capped: N }` with `limit = N + 1`. Without it, the
   * paginator takes `min(count(), limit)`.
   */
  countAtMost?(limit: number): Promise<number>
  /**
   * A cheap estimate of `count()` (PostgreSQL: the planner's row estimate), or `null` when
   * the source has none (SQLite), in which case `count: 'estimated'` counts exactly.
   */
  estimatedCount?(): Promise<number | null>
  /**
   * What identifies the counted collection for `count: { cachedMs }`: for SQL, the count
   * statement's text and parameters. Two sources with the same key must have the same
   * count. `null` (or no method): the count is not cached.
   */
  countKey?(): string | null
  /**
   * The same collection in another order (what an `OrderingFilter` asks for): the numbered
   * styles and `all()` of the copy follow `ordering`; counts are unchanged. Optional: an
   * ordering filter needs it (both built-in sources have it).
   */
  orderedBy?(ordering: readonly OrderingField[]): PageSource<T>
  /**
   * The rows that satisfy `condition` (what a `FilterSet` or `SearchFilter` asks for), in
   * the same order; every count and page of the copy counts and pages them. Optional: the
   * filters need it (both built-in sources have it).
   */
  filtered?(condition: Condition): PageSource<T>
}

/** One field of a cursor ordering. */
export interface OrderingField {
  readonly field: string
  readonly descending: boolean
}

/** A value of an ordering field as a cursor carries it. */
export type KeyValue = string | number | boolean | Date

/** What a keyset seek asks of a source. */
export interface SeekArgs {
  /** The full ordering, unique tiebreaker included. */
  readonly ordering: readonly OrderingField[]
  /**
   * The key (one value per ordering field) of the boundary row: only rows strictly
   * beyond it are returned. `null`: start at the beginning (or, reversed, at the end).
   */
  readonly after: readonly KeyValue[] | null
  /** Walk the ordering backwards: rows strictly *before* `after`, nearest first. */
  readonly reverse: boolean
  readonly limit: number
}

/**
 * What a position seek asks of a source: DRF's cursor semantics, used to honour cursors a
 * Django REST Framework deployment handed out. Only the *first* ordering field is compared.
 */
export interface PositionSeekArgs {
  /**
   * The order to walk in (a backward walk passes its fields inverted); rows come in this
   * order. A unique tiebreaker is included when the paginator has one.
   */
  readonly ordering: readonly OrderingField[]
  /**
   * A value of the first ordering field: only rows whose first field is strictly beyond it
   * in that field's direction are returned (`>` ascending, `<` descending; rows where the
   * field is null never are). `null`: no condition.
   */
  readonly position: KeyValue | null
  /** Rows to skip after the position condition (SQL `OFFSET`); a small, capped number. */
  readonly offset: number
  readonly limit: number
}

/** A source cursor pagination can seek in: keyset conditions, never OFFSET. */
export interface SeekSource<T> extends PageSource<T> {
  /** Rows beyond `after` in the ordering (reversed when `reverse`), at most `limit`. */
  seek(args: SeekArgs): Promise<readonly T[]>
  /** The key of `row` for `ordering`: the values the next seek starts after. */
  keyOf(row: T, ordering: readonly OrderingField[]): readonly KeyValue[]
  /** False when a decoded key cannot be compared with the fields (wrong type): the cursor is invalid. */
  acceptsKey(key: readonly KeyValue[], ordering: readonly OrderingField[]): boolean
  /**
   * Optional: rows past a first-field position, skipping `offset` (DRF's cursor semantics),
   * so `CursorPagination` can answer cursors issued by Django REST Framework. Without it,
   * such cursors are `Invalid cursor`.
   */
  seekPosition?(args: PositionSeekArgs): Promise<readonly T[]>
  /**
   * Optional: the value Django's model field makes of a DRF cursor's position text for
   * `field` (an integer field's Python `int()`, a datetime field's `parse_datetime` /
   * `parse_date`…), or `null` where Django raises (DRF answers 500; gatehouse `Invalid
   * cursor`). The value may lie outside the column's range (`2147483648` for a 32-bit
   * integer): `seekPosition` must compare it correctly. Without it, the position is tried
   * as a number, a boolean, a datetime and text, in that order, against `acceptsKey`.
   */
  drfPosition?(text: string, field: string): KeyValue | null
  /** `PageSource.orderedBy`, still a seek source. */
  orderedBy?(ordering: readonly OrderingField[]): SeekSource<T>
  /** `PageSource.filtered`, still a seek source. */
  filtered?(condition: Condition): SeekSource<T>
}

/** One entry of numbers-style controls; a break has no url and no number (DRF's `PAGE_BREAK`). */
export interface PageLink {
  readonly url: string | null
  readonly number: number | null
  readonly isActive: boolean
  readonly isBreak: boolean
}

/** What a controls template receives (DRF's `get_html_context()`). */
export interface HtmlContext {
  readonly previousUrl: string | null
  readonly nextUrl: string | null
  /** Numbered pages (page-number and limit/offset styles); absent for cursor styles. */
  readonly pageLinks?: readonly PageLink[]
}

/** Renders page controls from a paginator's HTML context. */
export type ControlTemplate = (context: HtmlContext) => string

/** The built-in control styles: DRF's `numbers.html` and `previous_and_next.html`. */
export type TemplateName = 'numbers' | 'previousNext'

/**
 * Replacements for the built-in control templates, set per API (`createApi({ htmlTemplates })`)
 * or per view; a paginator built with a template function of its own keeps it.
 */
export type HtmlTemplates = Partial<Readonly<Record<TemplateName, ControlTemplate>>>

/**
 * The outcome of paginating one request. All per-request state lives here, never
 * on the paginator, so one paginator instance serves concurrent requests. `State` is the
 * style's own (`PageNumberState`, `LimitOffsetState`, `CursorState`).
 */
export interface Page<T, State = unknown> {
  /** The rows of this page. */
  readonly items: readonly T[]
  /**
   * Size of the whole collection; `null` for styles that never count (cursor) and under
   * `count: 'none'`. A lower bound or an estimate under the other inexact count strategies.
   */
  readonly count: number | null
  /** Absolute URL of the next page, or `null`. */
  readonly next: string | null
  /** Absolute URL of the previous page, or `null`. */
  readonly previous: string | null
  /** Whether HTML controls are worth showing (DRF's `display_page_controls`). */
  readonly displayPageControls: boolean
  /** Style-specific state a custom paginator's response or controls may read. */
  readonly state: State
}

/** Per-request inputs besides the source. */
export interface PaginateOptions {
  /** The page size to use when the paginator sets none (the view's `pageSize` setting). */
  readonly defaultPageSize?: number | null
  /**
   * The ordering an ordering filter chose for this request (its declared fields, without a
   * tiebreaker). Cursor styles page by it, and bind their cursors to it, instead of their
   * own `ordering`; the numbered styles ignore it (the source is already ordered).
   * `undefined` or `null`: the style's own ordering.
   */
  readonly ordering?: readonly OrderingField[] | null
}

/**
 * A pagination style (spec 4.5). Built-ins: `PageNumberPagination`,
 * `LimitOffsetPagination`, `CursorPagination`, all on `BasePagination`. A custom style
 * extends `BasePagination` (or a built-in) and overrides `paginatedResponse` (body shape,
 * headers) or `htmlContext` (controls), or implements this interface from scratch.
 */
export interface Paginator<State = unknown> {
  /**
   * DRF's `paginate_queryset`: reads the request's paging parameters and fetches one page.
   * `null` means pagination is off for this request (no page size): serve the plain list.
   * Invalid parameters throw `NotFound` with DRF's message (or reject with it). May answer
   * synchronously when the source did (`MaybePromise`: `await` reads both).
   */
  paginate<T>(source: PageSource<T>, req: ApiRequest, options?: PaginateOptions): MaybePromise<Page<T, State> | null>
  /** DRF's `get_paginated_response`: the response for a page whose items were serialized to `data`. */
  paginatedResponse(page: Page<unknown, State>, data: readonly unknown[]): ApiResponse
  /** DRF's `get_html_context`. */
  htmlContext(page: Page<unknown, State>): HtmlContext
  /**
   * DRF's `to_html`: the controls markup, or `''` when the template is off. `templates` are
   * the API's (or view's) replacements for the built-in templates.
   */
  toHtml(page: Page<unknown, State>, templates?: HtmlTemplates): string
  /**
   * Checks, when a view is declared, that a source offering `fields` can serve this style
   * (cursor pagination: every ordering field is among them); throws `ConfigurationError`
   * naming `where` otherwise. Optional: styles that need no particular field omit it.
   */
  validateFields?(fields: readonly string[], where: string): void
  /**
   * The query parameters this style reads, as OpenAPI Parameter Objects (DRF's
   * `get_schema_operation_parameters`). Optional: without it a list operation lists none.
   */
  openApiParameters?(): readonly OpenApiParameter[]
  /**
   * The paginated response for items described by `item` (DRF's
   * `get_paginated_response_schema`), with any headers it sets. Optional: without it the
   * document describes the body as any JSON value.
   */
  openApiResponse?(item: JsonObject): OpenApiPaginatedResponse
}
