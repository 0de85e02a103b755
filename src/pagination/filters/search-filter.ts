import type { ApiRequest } from '../../core/api-request.js'
import { ConfigurationError, ValidationError } from '../../core/errors.js'
import type { OpenApiParameter } from '../../core/openapi-types.js'
import { isPythonSpace } from '../../core/request/python-strip.js'
import { queryParam } from '../query-params.js'
import type { Condition } from '../../core/filter-condition.js'

/** Options of `SearchFilter` (DRF's `SearchFilter` with the view's `search_fields`). */
export interface SearchFilterOptions {
  /**
   * The searched fields (DRF's `search_fields`), each a source field, optionally prefixed:
   * none (case-insensitive contains), `^` (case-insensitive starts with), `=` (case-insensitive
   * exact), `@` (PostgreSQL full-text search), `$` (PostgreSQL case-insensitive regex).
   */
  readonly fields: readonly string[]
  /** The query parameter (DRF's `SEARCH_PARAM`). @default 'search' */
  readonly param?: string
  /** The parameter's description in OpenAPI documents. @default 'A search term.' (DRF's) */
  readonly description?: string
  /**
   * The most terms a search may have: more answer `400` (DRF has no limit: each term is one
   * more condition over every row, and SQLite refuses about 1,000 of them with a 500). @default 100
   */
  readonly maxTerms?: number
}

/**
 * DRF 3.14's `get_search_terms`: NULs removed, commas as spaces, split on Python's
 * whitespace (`str.split()`). One pass.
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = []
  let term = ''
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0) continue
    if (code === 0x2c || isPythonSpace(code)) {
      if (term !== '') terms.push(term)
      term = ''
    } else {
      term += text[i]
    }
  }
  if (term !== '') terms.push(term)
  return terms
}

type SearchField = { readonly field: string; readonly prefix: '' | '^' | '=' | '@' | '$' }

function termCondition(f: SearchField, term: string): Condition {
  switch (f.prefix) {
    case '^':
      return { kind: 'text', field: f.field, match: 'startswith', caseInsensitive: true, value: term }
    case '=':
      return { kind: 'text', field: f.field, match: 'exact', caseInsensitive: true, value: term }
    case '@':
      return { kind: 'fullText', field: f.field, value: term }
    case '$':
      return { kind: 'regex', field: f.field, value: term }
    default:
      return { kind: 'text', field: f.field, match: 'contains', caseInsensitive: true, value: term }
  }
}

/**
 * DRF's `SearchFilter`: `?search=` is split into terms (whitespace and commas, NULs
 * removed); every term must match some field (an `and` of `or`s), each field by its
 * prefix's lookup. No term: no filter. It fails a request only past `maxTerms` terms
 * (400). One instance serves every request.
 *
 * @example
 * const search = new SearchFilter({ fields: ['title', '=author'] })
 * listHandler({ source, serialize, search })
 */
export class SearchFilter {
  /** The query parameter. */
  readonly param: string
  /** The parameter's description in OpenAPI documents. */
  readonly description: string
  private readonly searched: readonly SearchField[]
  private readonly maxTerms: number

  /** @throws ConfigurationError without fields, with an empty field name, or a `maxTerms` below 1. */
  constructor(options: SearchFilterOptions) {
    if (options.fields.length === 0) throw new ConfigurationError('ERR_FILTER_SET', 'SearchFilter needs at least one field (option "fields")')
    this.searched = options.fields.map((spec) => {
      const first = spec[0] ?? ''
      const prefixed = first === '^' || first === '=' || first === '@' || first === '$'
      const field = prefixed ? spec.slice(1) : spec
      if (field === '') throw new ConfigurationError('ERR_FILTER_SET', `SearchFilter option "fields": invalid field "${spec}"`)
      return { field, prefix: prefixed ? (first as SearchField['prefix']) : '' }
    })
    this.param = options.param ?? 'search'
    this.description = options.description ?? 'A search term.'
    this.maxTerms = options.maxTerms ?? 100
    if (!Number.isSafeInteger(this.maxTerms) || this.maxTerms < 1) throw new ConfigurationError('ERR_FILTER_SET', `SearchFilter option "maxTerms": a positive integer, got ${this.maxTerms}`)
  }

  /** The searched source fields (without their prefixes). */
  get fields(): readonly string[] {
    return [...new Set(this.searched.map((f) => f.field))]
  }

  /** True when a field needs PostgreSQL (`@` full text, `$` regex). */
  get needsPostgres(): boolean {
    return this.searched.some((f) => f.prefix === '@' || f.prefix === '$')
  }

  /**
   * The request's search as one condition (`null`: no term).
   * @throws ValidationError (400) for more than `maxTerms` terms.
   */
  conditionFor(req: ApiRequest): Condition | null {
    const terms = searchTerms(queryParam(req.url, this.param) ?? '')
    if (terms.length === 0) return null
    if (terms.length > this.maxTerms) {
      // Django's wording for a length limit (MaxLengthValidator), counted in terms.
      throw new ValidationError({ [this.param]: [`Ensure this value has at most ${this.maxTerms} terms (it has ${terms.length}).`] })
    }
    const conditions = terms.map((term): Condition => {
      const anyField = this.searched.map((f) => termCondition(f, term))
      return anyField.length === 1 ? (anyField[0] as Condition) : { kind: 'or', conditions: anyField }
    })
    return conditions.length === 1 ? (conditions[0] as Condition) : { kind: 'and', conditions }
  }

  /** The parameter as an OpenAPI Parameter Object. */
  openApiParameter(): OpenApiParameter {
    return { name: this.param, in: 'query', required: false, description: this.description, schema: { type: 'string' } }
  }
}
