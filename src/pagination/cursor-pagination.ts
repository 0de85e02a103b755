import type { ApiRequest } from '../core/api-request.js'
import { jsonResponse, type ApiResponse } from '../core/api-response.js'
import { ConfigurationError, NotFound } from '../core/errors.js'
import { BasePagination, type BasePaginationOptions } from './base-pagination.js'
import { decodeCursor, encodeCursor, type Cursor, type CursorSecret } from './cursor-codec.js'
import {
  isSeekSource,
  type HtmlContext,
  type KeyValue,
  type OrderingField,
  type Page,
  type PageSource,
  type PaginateOptions,
} from './paginator.js'
import { absoluteUrl, queryParam, queryParamReplacer, removeQueryParam } from './query-params.js'

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
    const bytes = typeof item === 'string' ? Buffer.byteLength(item, 'utf8') : item.byteLength
    if (bytes < MIN_SECRET_BYTES) {
      throw new ConfigurationError('ERR_GATEHOUSE_SECRET', `CursorPagination option "secret": each secret needs at least ${MIN_SECRET_BYTES} bytes`)
    }
  }
  return Object.freeze([...list])
}

/** Cursor state a custom response or template can read from `page.state`. */
export interface CursorState {
  readonly cursor: Cursor
  readonly hasNext: boolean
  readonly hasPrevious: boolean
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
  private readonly secrets: readonly CursorSecret[]
  private readonly scope: string

  /** @throws ConfigurationError without a `secret`, or with one shorter than 16 bytes. */
  constructor(options: CursorPaginationOptions) {
    super(options, 'previousNext')
    this.cursorQueryParam = options.cursorQueryParam ?? 'cursor'
    this.ordering = Object.freeze(parseOrdering(options.ordering ?? '-created', options.uniqueField === undefined ? 'id' : options.uniqueField))
    this.invalidCursorMessage = options.invalidCursorMessage ?? 'Invalid cursor'
    this.secrets = checkSecrets((options as { secret?: CursorPaginationOptions['secret'] }).secret)
    // Cursors are bound to the ordering: one minted for another ordering is invalid here.
    this.scope = this.ordering.map((f) => `${f.descending ? '-' : ''}${f.field}`).join(',')
  }

  /** Encodes a cursor for this paginator's ordering (for tests and custom links). */
  encode(cursor: Cursor): string {
    return encodeCursor(cursor, this.scope, this.secrets[0] as CursorSecret)
  }

  /** Decodes a cursor of this paginator; `null` when invalid or tampered with. */
  decode(text: string): Cursor | null {
    return decodeCursor(text, this.scope, this.ordering.length, this.secrets)
  }

  async paginate<T>(source: PageSource<T>, req: ApiRequest, options: PaginateOptions = {}): Promise<Page<T, CursorState> | null> {
    const pageSize = this.pageSizeFor(req, options.defaultPageSize ?? null)
    if (pageSize === null || pageSize <= 0) return null
    if (!isSeekSource(source)) {
      throw new ConfigurationError('ERR_CURSOR_SOURCE', 'CursorPagination needs a source with seek() (ArrayPageSource, KyselyPageSource)')
    }
    const raw = queryParam(req.url, this.cursorQueryParam)
    // DRF: an empty `?cursor=` decodes to the first page.
    let cursor: Cursor = { reverse: false, key: null }
    if (raw !== null && raw !== '') {
      const decoded = this.decode(raw)
      if (decoded === null || (decoded.key !== null && !source.acceptsKey(decoded.key, this.ordering))) {
        throw new NotFound(this.invalidCursorMessage)
      }
      cursor = decoded
    }
    const rows = await source.seek({ ordering: this.ordering, after: cursor.key, reverse: cursor.reverse, limit: pageSize + 1 })
    const extra = rows.length > pageSize
    const items = rows.slice(0, pageSize)
    if (cursor.reverse) items.reverse()
    const hasNext = cursor.reverse ? cursor.key !== null : extra
    const hasPrevious = cursor.reverse ? extra : cursor.key !== null
    const url = absoluteUrl(req.url)
    let replacer: ((value: string) => string) | null = null
    const link = (c: Cursor): string => (replacer ??= queryParamReplacer(url, this.cursorQueryParam))(this.encode(c))
    const first = items[0]
    const last = items[items.length - 1]
    let next: string | null = null
    if (hasNext) {
      // Rows strictly after the last one shown; from an empty reversed page, the first page.
      next = last !== undefined ? link({ reverse: false, key: source.keyOf(last, this.ordering) }) : removeQueryParam(url, this.cursorQueryParam)
    }
    let previous: string | null = null
    if (hasPrevious) {
      // Rows strictly before the first one shown; from an empty page past the end, the last page.
      previous = link({ reverse: true, key: first !== undefined ? source.keyOf(first, this.ordering) : null })
    }
    const state: CursorState = { cursor, hasNext, hasPrevious }
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

  /** DRF's cursor body: `{"next", "previous", "results"}`, no count. */
  override paginatedResponse(page: Page<unknown, CursorState>, data: readonly unknown[]): ApiResponse {
    return jsonResponse(200, { next: page.next, previous: page.previous, results: data })
  }

  htmlContext(page: Page<unknown, CursorState>): HtmlContext {
    return { previousUrl: page.previous, nextUrl: page.next }
  }
}

export type { Cursor, KeyValue }
