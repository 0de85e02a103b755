import type { ApiRequest } from '../core/api-request.js'
import { ConfigurationError } from '../core/errors.js'
import type { OpenApiParameter } from '../core/openapi-types.js'
import { pythonStrip } from '../core/request/python-strip.js'
import type { OrderingField, PageSource } from './paginator.js'
import { queryParam } from './query-params.js'

/** Options of `OrderingFilter` (DRF's `OrderingFilter` with the view's `ordering_fields` and `ordering`). */
export interface OrderingFilterOptions {
  /**
   * The fields a client may order by (DRF's `ordering_fields`), each a field of the source
   * (for a `KyselyPageSource`, a key of its `columns`). Required: there is no "every field"
   * default, so a new column is never orderable by accident. With cursor pagination, offer
   * only non-null fields that do not change after creation.
   */
  readonly fields: readonly string[]
  /**
   * The ordering when the request names no allowed field (DRF's view `ordering`): one field
   * or a list, `-` for descending. `null`: the style's own ordering (the source's `orderBy`
   * for the numbered styles, the paginator's `ordering` for cursor pagination). @default null
   */
  readonly ordering?: string | readonly string[] | null
  /** The query parameter (DRF's `ORDERING_PARAM`). @default 'ordering' */
  readonly param?: string
  /**
   * A unique, non-null field appended (ascending) when the chosen ordering lacks it, so the
   * numbered styles return ties in the same order on every database and every request
   * (DRF orders by exactly the requested fields). Cursor pagination appends its own
   * `uniqueField`. `null`: append nothing. @default 'id'
   */
  readonly uniqueField?: string | null
  /** The parameter's description in OpenAPI documents. @default 'Which field to use when ordering the results.' (DRF's) */
  readonly description?: string
}

/** Parses `'-created'` / `['-score', 'id']`, rejecting an empty or malformed entry. */
function parseFields(value: string | readonly string[], option: string): OrderingField[] {
  const list = typeof value === 'string' ? [value] : [...value]
  if (list.length === 0) throw new ConfigurationError('ERR_ORDERING_FILTER', `OrderingFilter option "${option}" is empty`)
  return list.map((item) => {
    const descending = item.startsWith('-')
    const field = descending ? item.slice(1) : item
    if (!isFieldName(field)) throw new ConfigurationError('ERR_ORDERING_FILTER', `OrderingFilter option "${option}": invalid field "${item}"`)
    return { field, descending }
  })
}

/** A name a client can spell in `?ordering=`: not empty, no comma, no leading `-`, no surrounding space. */
function isFieldName(name: string): boolean {
  return name !== '' && !name.startsWith('-') && !name.includes(',') && pythonStrip(name) === name
}

/** The fields once each, the first occurrence winning (`id,-id` orders by `id`). */
function firstOfEach(fields: readonly OrderingField[]): OrderingField[] {
  const seen = new Set<string>()
  const out: OrderingField[] = []
  for (const f of fields) {
    if (seen.has(f.field)) continue
    seen.add(f.field)
    out.push(f)
  }
  return out
}

/**
 * DRF's `OrderingFilter`: `?ordering=-score,id` orders a list by the allowed fields it names,
 * on every pagination style and in middleware style. Terms are split on commas and stripped
 * (Python's `str.strip()`); a term is allowed when it is a declared field, optionally after
 * one `-`; the others are dropped. When none is left, the filter's `ordering` applies, else
 * the style's own. It never fails a request: any `?ordering=` value is a 200.
 *
 * Give it to `listHandler({ ordering })` (checked against the handler's `fields` when the
 * view is declared) or to `paginatedList(ctx, paginator, source, serialize, { ordering })`.
 * With `CursorPagination` the filter's ordering is the cursor's: a cursor is bound to the
 * ordering it was issued under, so one sent with another `?ordering=` is `404 Invalid cursor`.
 * One instance serves every request (it keeps no per-request state).
 *
 * @example
 * const ordering = new OrderingFilter({ fields: ['id', 'title', 'score', 'created'], ordering: 'id' })
 * api.view({ handlers: { GET: listHandler({ source, serialize, fields: Object.keys(columns), ordering }) } })
 */
export class OrderingFilter {
  /** The query parameter. */
  readonly param: string
  /** The fields a client may order by. */
  readonly fields: readonly string[]
  /** The ordering without an allowed field in the request; `null`: the style's own. */
  readonly defaultOrdering: readonly OrderingField[] | null
  /** The tiebreaker appended for the numbered styles; `null`: none. */
  readonly uniqueField: string | null
  /** The parameter's description in OpenAPI documents. */
  readonly description: string
  private readonly allowed: ReadonlySet<string>

  /** @throws ConfigurationError for an empty or malformed `fields`, `ordering` or `param`. */
  constructor(options: OrderingFilterOptions) {
    const fields = [...new Set(options.fields)]
    if (fields.length === 0) throw new ConfigurationError('ERR_ORDERING_FILTER', 'OrderingFilter needs at least one field (option "fields")')
    for (const field of fields) {
      if (!isFieldName(field)) throw new ConfigurationError('ERR_ORDERING_FILTER', `OrderingFilter option "fields": invalid field "${field}"`)
    }
    this.fields = Object.freeze(fields)
    this.allowed = new Set(fields)
    const ordering = options.ordering ?? null
    this.defaultOrdering = ordering === null ? null : Object.freeze(firstOfEach(parseFields(ordering, 'ordering')))
    this.param = options.param ?? 'ordering'
    if (this.param === '') throw new ConfigurationError('ERR_ORDERING_FILTER', 'OrderingFilter option "param" is empty')
    this.uniqueField = options.uniqueField === undefined ? 'id' : options.uniqueField
    if (this.uniqueField !== null && !isFieldName(this.uniqueField)) {
      throw new ConfigurationError('ERR_ORDERING_FILTER', `OrderingFilter option "uniqueField": invalid field "${this.uniqueField}"`)
    }
    this.description = options.description ?? 'Which field to use when ordering the results.'
  }

  /**
   * The allowed fields `?ordering=` names, each once, in the client's order (DRF's
   * `get_ordering`: the last `ordering` parameter when it repeats); without any, the
   * default ordering; `null` when there is none either (keep the style's own).
   */
  orderingFor(req: ApiRequest): readonly OrderingField[] | null {
    const raw = queryParam(req.url, this.param)
    if (raw !== null && raw !== '') {
      const terms = raw.split(',').map((piece) => {
        const term = pythonStrip(piece)
        return term.startsWith('-') ? { field: term.slice(1), descending: true } : { field: term, descending: false }
      })
      const chosen = firstOfEach(terms.filter((t) => this.allowed.has(t.field)))
      if (chosen.length > 0) return chosen
    }
    return this.defaultOrdering
  }

  /** `ordering` with the unique tiebreaker appended (ascending) when it lacks it. */
  withTiebreaker(ordering: readonly OrderingField[]): readonly OrderingField[] {
    const unique = this.uniqueField
    return unique === null || ordering.some((f) => f.field === unique) ? ordering : [...ordering, { field: unique, descending: false }]
  }

  /**
   * `source` ordered as the request asks, and the ordering chosen (`null`: none, the source
   * is returned as it is).
   * @throws ConfigurationError when the source cannot be reordered (it has no `orderedBy`).
   */
  apply<T>(source: PageSource<T>, req: ApiRequest): { readonly source: PageSource<T>; readonly ordering: readonly OrderingField[] | null } {
    const ordering = this.orderingFor(req)
    if (ordering === null) return { source, ordering }
    if (typeof source.orderedBy !== 'function') {
      throw new ConfigurationError('ERR_ORDERING_FILTER', 'OrderingFilter needs a source with orderedBy() (ArrayPageSource, KyselyPageSource)')
    }
    return { source: source.orderedBy(this.withTiebreaker(ordering)), ordering }
  }

  /**
   * Checks, when the view is declared, that the source offers every field the filter can
   * order by (its `fields`, default ordering and tiebreaker).
   * @throws ConfigurationError naming `where` and the missing fields.
   */
  validateFields(sourceFields: readonly string[], where: string): void {
    const needed = [...this.fields, ...(this.defaultOrdering ?? []).map((f) => f.field), ...(this.uniqueField === null ? [] : [this.uniqueField])]
    const missing = [...new Set(needed.filter((f) => !sourceFields.includes(f)))]
    if (missing.length > 0) {
      throw new ConfigurationError(
        'ERR_PAGE_SOURCE_COLUMN',
        `${where}: OrderingFilter orders by ${missing.map((f) => `"${f}"`).join(', ')}, which the source does not declare (its fields: ${sourceFields.join(', ')})`,
      )
    }
  }

  /**
   * The parameter as an OpenAPI Parameter Object: a comma-separated list (`style: form`,
   * `explode: false`) of the allowed values, each field and its `-` form.
   */
  openApiParameter(): OpenApiParameter {
    const values = this.fields.flatMap((f) => [f, `-${f}`])
    const fallback = this.defaultOrdering === null ? '' : ` Default: ${this.defaultOrdering.map((f) => (f.descending ? `-${f.field}` : f.field)).join(',')}.`
    return {
      name: this.param,
      in: 'query',
      required: false,
      description: `${this.description} A comma-separated list of ${this.fields.join(', ')}, each optionally prefixed with "-" for descending; unknown fields are ignored.${fallback}`,
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: values } },
    }
  }
}
