import type { ApiRequest } from '../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import { ConfigurationError, NotFound } from '../core/errors.js'
import { utf8ByteLength } from '../core/encoding/text.js'
import type { JsonObject, OpenApiPaginatedResponse, OpenApiParameter } from '../core/openapi-types.js'
import { BasePagination, type BasePaginationOptions } from './base-pagination.js'
import { envelopeSchema, pageSizeParameter, queryParameter } from './openapi-schemas.js'
import { decodeCursor, encodeCursor, type Cursor, type CursorSecret } from './cursor-codec.js'
import { decodeDrfCursor, drfPositionCandidates, DRF_OFFSET_CUTOFF, type DrfCursor } from './drf-cursor.js'
import {
  isSeekSource,
  type HtmlContext,
  type KeyValue,
  type OrderingField,
  type Page,
  type PageSource,
  type PaginateOptions,
  type SeekSource,
} from './paginator.js'
import { absoluteUrl, queryParam, queryParamReplacer } from './query-params.js'

/** Options of `CursorPagination` (spec 4.3); the controls default to `'previousNext'`. */
export interface CursorPaginationOptions extends BasePaginationOptions {
  /** @default 'cursor' */
  readonly cursorQueryParam?: string
  /** Field(s) to page by; `-` means descending. @default '-created' */
  readonly ordering?: string | readonly string[]
  /**
   * A unique, non-null field appended (ascending) when the ordering lacks it, so
   * every row has a distinct key and ties never repeat or skip rows. `null` when
   * the ordering is already unique. @default 'id'
   */
  readonly uniqueField?: string | null
  /**
   * Key for the cursors' HMAC (required: there is no built-in default, which anyone could
   * read and mint cursors with). The same on every instance, at least 16 bytes. A list
   * rotates keys: the first signs, every one verifies.
   */
  readonly secret: CursorSecret | readonly CursorSecret[]
  /** @default 'Invalid cursor' (DRF's text, no period) */
  readonly invalidCursorMessage?: string
  /**
   * Honour cursors issued by Django REST Framework (`base64("o=…&r=1&p=…")`), for clients
   * caught mid-walk by a migration: such a page holds the rows DRF would have returned, and
   * its links carry gatehouse cursors. Needs a source with `seekPosition` (both built-in
   * sources have it). DRF cursors are unsigned: while this is on, a client can seek to any
   * position and skip up to `drfOffsetCutoff` rows. Turn it on only while clients may still
   * hold cursors DRF issued. `false`: only gatehouse cursors are valid. @default false
   */
  readonly drfCursors?: boolean
  /**
   * The largest offset (`o=`) honoured in a DRF cursor; a larger one is clamped to it, as
   * DRF clamps to its `offset_cutoff`. Each unit is a row read and skipped. @default 1000
   */
  readonly drfOffsetCutoff?: number
}

/** The minimum length of a cursor secret, in bytes (UTF-8 for a string). */
const MIN_SECRET_BYTES = 16

/** Validates the `secret` option once, at construction (never mid-request). */
function checkSecrets(secret: CursorSecret | readonly CursorSecret[] | undefined): readonly CursorSecret[] {
  const list: readonly CursorSecret[] =
    secret === undefined ? [] : typeof secret === 'string' || secret instanceof Uint8Array ? [secret] : secret
  if (list.length === 0) {
    throw new ConfigurationError(
      'ERR_GATEHOUSE_SECRET',
      'CursorPagination needs a secret (option "secret": a string or bytes, or a list to rotate keys); there is no built-in default',
    )
  }
  for (const item of list) {
    const bytes = typeof item === 'string' ? utf8ByteLength(item) : item.byteLength
    if (bytes < MIN_SECRET_BYTES) {
      throw new ConfigurationError('ERR_GATEHOUSE_SECRET', `CursorPagination option "secret": each secret needs at least ${MIN_SECRET_BYTES} bytes`)
    }
  }
  return Object.freeze([...list])
}

/** Cursor state a custom response or template can read from `page.state`. */
export interface CursorState {
  /** The gatehouse cursor of the request (`{ reverse, key: null }` for a DRF cursor). */
  readonly cursor: Cursor
  readonly hasNext: boolean
  readonly hasPrevious: boolean
  /** The Django REST Framework cursor the request carried, when it carried one. */
  readonly drf?: DrfCursor
}

/** Parses `'-created'` / `['-score', 'id']` into fields, with the unique tiebreaker appended. */
export function parseOrdering(ordering: string | readonly string[], uniqueField: string | null): OrderingField[] {
  const list = typeof ordering === 'string' ? [ordering] : [...ordering]
  if (list.length === 0) throw new ConfigurationError('ERR_CURSOR_ORDERING', 'CursorPagination: ordering is empty')
  const fields = list.map((item) => {
    const descending = item.startsWith('-')
    const field = descending ? item.slice(1) : item
    if (field === '' || field.includes('__')) {
      throw new ConfigurationError('ERR_CURSOR_ORDERING', `CursorPagination: invalid ordering field "${item}"`)
    }
    return { field, descending }
  })
  if (uniqueField !== null && !fields.some((f) => f.field === uniqueField)) fields.push({ field: uniqueField, descending: false })
  return fields
}

/** An ordering a page is walked in: the fields with the tiebreaker, how many were declared, the cursors' scope. */
interface OrderingPlan {
  readonly ordering: readonly OrderingField[]
  /** How many leading fields were declared (the rest is the appended tiebreaker). */
  readonly declared: number
  /** What cursors are bound to: a cursor minted under another ordering is invalid here. */
  readonly scope: string
}

function planOf(declared: readonly OrderingField[], uniqueField: string | null): OrderingPlan {
  const ordering = Object.freeze(uniqueField === null || declared.some((f) => f.field === uniqueField) ? [...declared] : [...declared, { field: uniqueField, descending: false }])
  return { ordering, declared: declared.length, scope: ordering.map((f) => `${f.descending ? '-' : ''}${f.field}`).join(',') }
}

/**
 * Cursor pagination with DRF's wire shape (`{"next", "previous", "results"}`, no
 * count) but a keyset underneath: the cursor carries the full key of the boundary
 * row (every ordering field plus a unique tiebreaker), so a forward walk never
 * repeats or skips a row that existed when it started, whatever others insert,
 * and previous links return the same pages. Cost does not grow with depth.
 */
export class CursorPagination extends BasePagination<CursorState> {
  readonly cursorQueryParam: string
  readonly ordering: readonly OrderingField[]
  readonly invalidCursorMessage: string
  readonly drfCursors: boolean
  readonly drfOffsetCutoff: number
  /** The tiebreaker appended to every ordering that lacks it (this one's and an ordering filter's). */
  readonly uniqueField: string | null
  private readonly secrets: readonly CursorSecret[]
  /** The plan of `ordering`, for requests without an ordering filter's choice. */
  private readonly plan: OrderingPlan

  /** @throws ConfigurationError without a `secret`, or with one shorter than 16 bytes. */
  constructor(options: CursorPaginationOptions) {
    super(options, 'previousNext')
    this.cursorQueryParam = options.cursorQueryParam ?? 'cursor'
    this.uniqueField = options.uniqueField === undefined ? 'id' : options.uniqueField
    const declared = options.ordering ?? '-created'
    this.ordering = Object.freeze(parseOrdering(declared, this.uniqueField))
    this.plan = { ordering: this.ordering, declared: typeof declared === 'string' ? 1 : declared.length, scope: planOf(this.ordering, null).scope }
    this.invalidCursorMessage = options.invalidCursorMessage ?? 'Invalid cursor'
    this.drfCursors = options.drfCursors ?? false
    this.drfOffsetCutoff = options.drfOffsetCutoff ?? DRF_OFFSET_CUTOFF
    if (!Number.isSafeInteger(this.drfOffsetCutoff) || this.drfOffsetCutoff < 0) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'CursorPagination option "drfOffsetCutoff" must be a non-negative integer')
    }
    this.secrets = checkSecrets((options as { secret?: CursorSecret | readonly CursorSecret[] }).secret)
  }

  /** The plan for an ordering filter's choice (declared fields), or this paginator's own. */
  private planFor(chosen: readonly OrderingField[] | null | undefined): OrderingPlan {
    return chosen === null || chosen === undefined || chosen.length === 0 ? this.plan : planOf(chosen, this.uniqueField)
  }

  /**
   * Encodes a cursor for this paginator's ordering, or for `ordering` (an ordering filter's
   * choice, without the tiebreaker): for tests and custom links.
   */
  encode(cursor: Cursor, ordering?: readonly OrderingField[]): string {
    return encodeCursor(cursor, this.planFor(ordering).scope, this.secrets[0] as CursorSecret)
  }

  /** Decodes a cursor of this paginator (issued under `ordering`, as for `encode`); `null` when invalid or tampered with. */
  decode(text: string, ordering?: readonly OrderingField[]): Cursor | null {
    const plan = this.planFor(ordering)
    return decodeCursor(text, plan.scope, plan.ordering.length, this.secrets)
  }

  async paginate<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions = {}): Promise<Page<T, CursorState> | null> {
    const pageSize = this.pageSizeFor(req, options.defaultPageSize ?? null)
    if (pageSize === null || pageSize <= 0) return null
    if (!isSeekSource(source)) {
      throw new ConfigurationError('ERR_CURSOR_SOURCE', 'CursorPagination needs a source with seek() (ArrayPageSource, KyselyPageSource)')
    }
    const plan = this.planFor(options.ordering)
    const raw = queryParam(req.url, this.cursorQueryParam)
    // DRF: an empty `?cursor=` decodes to the first page.
    let cursor: Cursor = { reverse: false, key: null }
    if (raw !== null && raw !== '') {
      const decoded = decodeCursor(raw, plan.scope, plan.ordering.length, this.secrets)
      if (decoded === null) {
        const drf = this.drfCursorFor(raw, source, plan)
        if (drf !== null) return this.drfPage(source, req, pageSize, drf.cursor, drf.position, plan)
        throw new NotFound(this.invalidCursorMessage)
      }
      if (decoded.key !== null && !source.acceptsKey(decoded.key, plan.ordering)) throw new NotFound(this.invalidCursorMessage)
      cursor = decoded
    }
    const rows = await source.seek({ ordering: plan.ordering, after: cursor.key, reverse: cursor.reverse, limit: pageSize + 1 })
    const extra = rows.length > pageSize
    const items = rows.slice(0, pageSize)
    if (cursor.reverse) items.reverse()
    const hasNext = cursor.reverse ? cursor.key !== null : extra
    const hasPrevious = cursor.reverse ? extra : cursor.key !== null
    return this.pageOf(source, req, plan, items, { cursor, hasNext, hasPrevious })
  }

  /**
   * A DRF cursor and its position converted to the first ordering field's type, or `null`
   * when `raw` is not one this paginator honours: DRF cursors off, a source without
   * `seekPosition`, a gatehouse-shaped text (standard base64 never holds a `.`), what DRF
   * itself rejects, or a position that fits no value the source accepts for the field.
   */
  private drfCursorFor<T>(raw: string, source: SeekSource<T>, plan: OrderingPlan): { cursor: DrfCursor; position: KeyValue | null } | null {
    if (!this.drfCursors || typeof source.seekPosition !== 'function' || raw.includes('.')) return null
    const cursor = decodeDrfCursor(raw, this.drfOffsetCutoff)
    if (cursor === null) return null
    if (cursor.position === null) return { cursor, position: null }
    const lead = plan.ordering.slice(0, 1)
    const text = cursor.position
    const position =
      source.drfPosition !== undefined
        ? (source.drfPosition(text, lead[0]?.field ?? '') ?? undefined)
        : drfPositionCandidates(text).find((value) => source.acceptsKey([value], lead))
    return position === undefined ? null : { cursor, position }
  }

  /**
   * The page DRF would answer for `drf` (drf-behaviors §14.4): rows whose first ordering
   * field is strictly beyond the position, `offset` skipped; DRF's has-next / has-previous
   * rules. Going backwards DRF inverts only the declared fields: rows tied on them keep the
   * database's order (the tiebreaker's ascending order), so a reverse page lists ties the
   * other way round than a forward page, and its rows are picked that way too. Its links are
   * gatehouse cursors from the page's first and last rows in gatehouse's own order.
   */
  private async drfPage<T>(
    source: SeekSource<T>,
    req: ApiRequest,
    pageSize: number,
    drf: DrfCursor,
    position: KeyValue | null,
    plan: OrderingPlan,
  ): Promise<Page<T, CursorState>> {
    const seekPosition = source.seekPosition?.bind(source)
    if (seekPosition === undefined) throw new NotFound(this.invalidCursorMessage)
    const walk = drf.reverse ? plan.ordering.map((f, i) => (i < plan.declared ? { ...f, descending: !f.descending } : f)) : plan.ordering
    const rows = await seekPosition({ ordering: walk, position, offset: drf.offset, limit: pageSize + 1 })
    const extra = rows.length > pageSize
    const items = rows.slice(0, pageSize)
    if (drf.reverse) items.reverse()
    const moved = drf.position !== null || drf.offset > 0
    const hasNext = drf.reverse ? moved : extra
    const hasPrevious = drf.reverse ? extra : moved
    const inOrder = drf.reverse && plan.declared < plan.ordering.length ? this.reverseWithinTies(source, items, plan) : items
    return this.pageOf(source, req, plan, items, { cursor: { reverse: drf.reverse, key: null }, hasNext, hasPrevious, drf }, inOrder)
  }

  /** `items` (a reverse DRF page) in gatehouse's order: each run tied on the declared fields reversed. */
  private reverseWithinTies<T>(source: SeekSource<T>, items: readonly T[], plan: OrderingPlan): T[] {
    const declared = plan.ordering.slice(0, plan.declared)
    const same = (a: readonly KeyValue[], b: readonly KeyValue[]): boolean =>
      a.every((value, i) => {
        const other = b[i]
        return value instanceof Date && other instanceof Date ? value.getTime() === other.getTime() : value === other
      })
    const out: T[] = []
    let run: T[] = []
    let runKey: readonly KeyValue[] | null = null
    for (const item of items) {
      const key = source.keyOf(item, declared)
      if (runKey !== null && !same(runKey, key)) {
        out.push(...run.reverse())
        run = []
      }
      run.push(item)
      runKey = key
    }
    out.push(...run.reverse())
    return out
  }

  /**
   * The page for `items` (in natural order) with gatehouse links from the first and last
   * rows of `inOrder` (the same rows in gatehouse's order).
   */
  private pageOf<T>(
    source: SeekSource<T>,
    req: ApiRequest,
    plan: OrderingPlan,
    items: readonly T[],
    state: CursorState,
    inOrder: readonly T[] = items,
  ): Page<T, CursorState> {
    const { hasNext, hasPrevious } = state
    const url = absoluteUrl(req.url)
    let replacer: ((value: string) => string) | null = null
    const encode = (c: Cursor): string => encodeCursor(c, plan.scope, this.secrets[0] as CursorSecret)
    const link = (c: Cursor): string => (replacer ??= queryParamReplacer(url, this.cursorQueryParam))(encode(c))
    const first = inOrder[0]
    const last = inOrder[inOrder.length - 1]
    let next: string | null = null
    if (hasNext) {
      // Rows strictly after the last one shown; from an empty reversed page, the first page,
      // still as a cursor link (DRF's next always carries one; its position there skips rows).
      next = link({ reverse: false, key: last !== undefined ? source.keyOf(last, plan.ordering) : null })
    }
    let previous: string | null = null
    if (hasPrevious) {
      // Rows strictly before the first one shown; from an empty page past the end, the last page.
      previous = link({ reverse: true, key: first !== undefined ? source.keyOf(first, plan.ordering) : null })
    }
    return {
      items,
      count: null,
      next,
      previous,
      displayPageControls: (hasNext || hasPrevious) && this.template !== null,
      state,
    }
  }

  /** Every ordering field must be one the source declares (`listHandler({ fields })`). */
  validateFields(fields: readonly string[], where: string): void {
    const missing = this.ordering.filter((f) => !fields.includes(f.field)).map((f) => f.field)
    if (missing.length > 0) {
      throw new ConfigurationError(
        'ERR_PAGE_SOURCE_COLUMN',
        `${where}: CursorPagination orders by ${missing.map((f) => `"${f}"`).join(', ')}, which the source does not declare (its fields: ${fields.join(', ')})`,
      )
    }
  }

  /** DRF's parameters: the cursor, and the page size when clients may choose it. */
  openApiParameters(): readonly OpenApiParameter[] {
    const cursor = queryParameter(this.cursorQueryParam, 'The pagination cursor value.', { type: 'string' })
    return this.pageSizeQueryParam === null ? [cursor] : [cursor, pageSizeParameter(this.pageSizeQueryParam, this.maxPageSize)]
  }

  /** DRF's `{next, previous, results}`: no count. */
  openApiResponse(item: JsonObject): OpenApiPaginatedResponse {
    const c = this.cursorQueryParam
    return { schema: envelopeSchema(item, 'absent', `${c}=cD00ODY%3D`, `${c}=cj0xJnA9NDg3`), name: 'CursorPage' }
  }

  override paginatedResponse(page: Page<unknown, CursorState>, data: readonly unknown[]): ApiResponse {
    return jsonResponse(200, { next: page.next, previous: page.previous, results: data })
  }

  htmlContext(page: Page<unknown, CursorState>): HtmlContext {
    return { previousUrl: page.previous, nextUrl: page.next }
  }
}

export type { Cursor, KeyValue }
