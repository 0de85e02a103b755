import type { ApiRequest } from '../../core/api-request.js'
import { ConfigurationError, ValidationError } from '../../core/errors.js'
import type { JsonObject, OpenApiParameter } from '../../core/openapi-types.js'
import { queryParam } from '../query-params.js'
import { allOf, type Condition, type FilterValue } from '../../core/filter-condition.js'
import { readValue, type FilterType, type FilterTypeValues, type ReadValue } from './filter-values.js'

/** django-filter's lookups (`field__lookup` parameters; `exact` is the bare field name). */
export type FilterLookup = 'exact' | 'iexact' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'icontains' | 'startswith' | 'istartswith' | 'isnull' | 'range'

/** A field filtered with django-filter's lookups (`Meta.fields = {'score': ['exact', 'gte']}`). */
export interface FieldFilters {
  readonly type: FilterType
  readonly lookups: readonly FilterLookup[]
  /** The source field (a `KyselyPageSource` column key) when it differs from the parameter's name. */
  readonly field?: string
  /** The allowed values of a `choice` field. */
  readonly choices?: readonly string[]
  /** The parameter's description in OpenAPI documents. */
  readonly description?: string
}

/**
 * A filter of one parameter, as a user writes their own (django-filter's `method=`): the
 * value read as `type` reads it (an error answers 400), then `condition` of that value.
 * The built-in lookups are filters of this form.
 */
export interface CustomFilter<K extends FilterType = FilterType> {
  readonly type: K
  readonly condition: (value: FilterTypeValues[K]) => Condition
  /** The allowed values of a `choice` filter. */
  readonly choices?: readonly string[]
  readonly description?: string
}

/** A filter set's declaration: parameter or field name → its filters, in the order django-filter lists them. */
export type FilterSetDeclaration = Readonly<Record<string, FieldFilters | CustomFilter<'integer'> | CustomFilter<'number'> | CustomFilter<'text'> | CustomFilter<'boolean'> | CustomFilter<'datetime'> | CustomFilter<'choice'>>>

/** One query parameter of a filter set. */
interface ParamFilter {
  readonly name: string
  readonly type: FilterType
  readonly lookup: FilterLookup | null
  readonly field: string | null
  readonly choices: readonly string[]
  /** django-filter's label (`Score is greater than or equal to`): the form field's label on the HTML page. */
  readonly label: string
  /** The declaration's description, if any. */
  readonly description: string | undefined
  /** The parameter's raw text to a condition, `null` (no filter) or error messages. */
  readonly read: (raw: string) => { readonly condition: Condition | null } | { readonly errors: readonly string[] }
}

const LOOKUPS: ReadonlySet<FilterLookup> = new Set<FilterLookup>(['exact', 'iexact', 'in', 'gt', 'gte', 'lt', 'lte', 'contains', 'icontains', 'startswith', 'istartswith', 'isnull', 'range'])
const TEXT_LOOKUPS: Partial<Record<FilterLookup, { match: 'exact' | 'contains' | 'startswith'; caseInsensitive: boolean }>> = {
  iexact: { match: 'exact', caseInsensitive: true },
  contains: { match: 'contains', caseInsensitive: false },
  icontains: { match: 'contains', caseInsensitive: true },
  startswith: { match: 'startswith', caseInsensitive: false },
  istartswith: { match: 'startswith', caseInsensitive: true },
}
const COMPARISONS: Partial<Record<FilterLookup, '=' | '<' | '<=' | '>' | '>='>> = { exact: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }

type Parsed = { readonly value: FilterValue; readonly micros?: number }

/**
 * A date-time compared with rows of millisecond precision: Django compares with
 * microseconds, so a value between two milliseconds rounds toward the rows it admits
 * (`>= 00:07:00.000001` is `>= 00:07:00.001`). One SQL shape whatever the value.
 */
function compareCondition(field: string, op: '=' | '<' | '<=' | '>' | '>=', parsed: Parsed): Condition {
  const micros = parsed.micros ?? 0
  if (!(parsed.value instanceof Date)) return { kind: 'compare', field, op, value: parsed.value }
  const floor = parsed.value
  const ceil = new Date(floor.getTime() + (micros > 0 ? 1 : 0))
  if (op === '=') {
    // Equal to a time between two milliseconds: no row, in the same shape (`>= ceil AND <= floor`).
    return { kind: 'and', conditions: [{ kind: 'compare', field, op: '>=', value: ceil }, { kind: 'compare', field, op: '<=', value: floor }] }
  }
  return { kind: 'compare', field, op, value: op === '>=' || op === '<' ? ceil : floor }
}

/** Comma-separated values (django-filter's `BaseCSVField`): the first failing one's errors, the empty ones dropped. */
function readList(type: FilterType, raw: string, choices: readonly string[]): { values: Parsed[] } | { errors: readonly string[] } {
  const values: Parsed[] = []
  for (const piece of raw.split(',')) {
    const read: ReadValue<unknown> = readValue(type, piece, choices)
    if ('errors' in read) return read
    if ('value' in read) values.push(read as Parsed)
  }
  return { values }
}

/** The reader of `field__lookup`. */
function lookupReader(field: string, type: FilterType, lookup: FilterLookup, choices: readonly string[]): ParamFilter['read'] {
  if (lookup === 'isnull') {
    return (raw) => {
      const read = readValue('boolean', raw)
      return { condition: 'value' in read ? { kind: 'isNull', field, isNull: read.value } : null }
    }
  }
  if (lookup === 'in' || lookup === 'range') {
    return (raw) => {
      if (raw === '') return { condition: null }
      const list = readList(type, raw, choices)
      if ('errors' in list) return list
      if (lookup === 'range') {
        const [low, high] = list.values
        if (raw.split(',').length !== 2) return { errors: ['Range query expects two values.'] }
        if (low === undefined || high === undefined) return { condition: null }
        return { condition: { kind: 'and', conditions: [compareCondition(field, '>=', low), compareCondition(field, '<=', high)] } }
      }
      return { condition: { kind: 'in', field, values: list.values.map((v) => v.value) } }
    }
  }
  const text = TEXT_LOOKUPS[lookup]
  const op = COMPARISONS[lookup]
  return (raw) => {
    const read = readValue(type, raw, choices)
    if ('errors' in read) return read
    if (!('value' in read)) return { condition: null }
    const parsed = read as Parsed
    if (text !== undefined) return { condition: { kind: 'text', field, ...text, value: String(parsed.value) } }
    if (op === undefined) throw new Error(`unreachable lookup ${lookup}`)
    return { condition: compareCondition(field, op, parsed) }
  }
}

/** django-filter's `VERBOSE_LOOKUPS`: what a lookup adds to its filter's label. */
const VERBOSE_LOOKUPS: Readonly<Record<FilterLookup, string>> = {
  exact: '',
  iexact: '',
  in: 'is in',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  lt: 'is less than',
  lte: 'is less than or equal to',
  contains: 'contains',
  icontains: 'contains',
  startswith: 'starts with',
  istartswith: 'starts with',
  isnull: 'is null',
  range: 'is in range',
}

/** django-filter's help text of its comma-separated filters (`BaseCSVFilter`: `in`, `range`). */
const CSV_HELP = 'Multiple values may be separated by commas.'

/**
 * django-filter's `label_for_filter`: the field's verbose name (Django's default: the name,
 * `_` as spaces, `id` as `ID`) and the lookup's, the first letter capitalised.
 */
function filterLabel(name: string, lookup: FilterLookup | null): string {
  const verbose = name
    .split('__')
    .map((part) => (part === 'id' ? 'ID' : part.replaceAll('_', ' ')))
    .join(' ')
  const text = [verbose, lookup === null ? '' : VERBOSE_LOOKUPS[lookup]].filter((part) => part !== '').join(' ')
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** The JSON Schema of one value (`in` and `range` take comma-separated text: see `openApiParameters`). */
const TYPE_SCHEMA: Readonly<Record<FilterType, JsonObject>> = {
  integer: { type: 'integer' },
  number: { type: 'number' },
  text: { type: 'string' },
  boolean: { type: 'boolean' },
  datetime: { type: 'string', format: 'date-time' },
  choice: { type: 'string' },
}

type Entry = FilterSetDeclaration[string]

function isCustom(entry: Entry): entry is Exclude<Entry, FieldFilters> {
  return typeof (entry as { condition?: unknown }).condition === 'function'
}

/**
 * django-filter's `FilterSet` under `DjangoFilterBackend`: query parameters named after the
 * fields and their lookups (`?score__gte=5&id__in=1,2&title__icontains=art`), each value
 * read as Django's form field for the field's type reads it. An empty value is no filter;
 * values that do not read answer `400` with every failing parameter in declaration order
 * (`{"score": ["Enter a number."]}`). The filters are and-ed into one `Condition` that the
 * source applies (`KyselyPageSource`: parameterised SQL; `ArrayPageSource`: in memory).
 *
 * Give it to `listHandler({ filters })` or `paginatedList(..., { filters })`. One instance
 * serves every request.
 *
 * @example
 * const filters = new FilterSet({
 *   score: { type: 'integer', lookups: ['exact', 'gte', 'lte', 'in'] },
 *   title: { type: 'text', lookups: ['icontains'] },
 *   min_score: { type: 'integer', condition: (v) => ({ kind: 'compare', field: 'score', op: '>=', value: v }) },
 * })
 */
export class FilterSet {
  private readonly params: readonly ParamFilter[]

  /** @throws ConfigurationError for an unknown lookup, a `choice` field without choices, or a lookup its type lacks. */
  constructor(declaration: FilterSetDeclaration) {
    const params: ParamFilter[] = []
    for (const [name, entry] of Object.entries(declaration)) {
      const choices = entry.choices ?? []
      if (entry.type === 'choice' && choices.length === 0) throw new ConfigurationError('ERR_FILTER_SET', `FilterSet: "${name}" is a choice filter without choices`)
      if (isCustom(entry)) {
        const condition = entry.condition as (value: unknown) => Condition
        params.push({
          name,
          type: entry.type,
          lookup: null,
          field: null,
          choices,
          label: filterLabel(name, null),
          description: entry.description,
          read: (raw) => {
            const read = readValue(entry.type, raw, choices)
            if ('errors' in read) return read
            return { condition: 'value' in read ? condition(read.value) : null }
          },
        })
        continue
      }
      const field = entry.field ?? name
      for (const lookup of entry.lookups) {
        if (!LOOKUPS.has(lookup)) throw new ConfigurationError('ERR_FILTER_SET', `FilterSet: unknown lookup "${lookup}" for "${name}"`)
        const textual = entry.type === 'text' || entry.type === 'choice'
        if (TEXT_LOOKUPS[lookup] !== undefined && !textual) throw new ConfigurationError('ERR_FILTER_SET', `FilterSet: lookup "${lookup}" needs a text field ("${name}" is ${entry.type})`)
        params.push({
          name: lookup === 'exact' ? name : `${name}__${lookup}`,
          type: lookup === 'isnull' ? 'boolean' : entry.type,
          lookup,
          field,
          choices,
          label: filterLabel(name, lookup),
          description: entry.description,
          read: lookupReader(field, entry.type, lookup, choices),
        })
      }
    }
    if (params.length === 0) throw new ConfigurationError('ERR_FILTER_SET', 'FilterSet needs at least one filter')
    this.params = params
  }

  /** The query parameters, in declaration order. */
  get names(): readonly string[] {
    return this.params.map((p) => p.name)
  }

  /** The source fields the lookups filter on (custom filters name theirs in their conditions). */
  get fields(): readonly string[] {
    return [...new Set(this.params.flatMap((p) => (p.field === null ? [] : [p.field])))]
  }

  /**
   * The request's filters as one condition (`null`: none applies).
   * @throws ValidationError (400) listing every parameter whose value does not read, with Django's messages.
   */
  conditionFor(req: ApiRequest): Condition | null {
    const conditions: Condition[] = []
    let errors: Record<string, string[]> | null = null
    for (const param of this.params) {
      const raw = queryParam(req.url, param.name)
      if (raw === null) continue
      const read = param.read(raw)
      if ('errors' in read) (errors ??= {})[param.name] = [...read.errors]
      else if (read.condition !== null) conditions.push(read.condition)
    }
    if (errors !== null) throw new ValidationError(errors)
    return allOf(conditions)
  }

  /**
   * The parameters as OpenAPI Parameter Objects, in declaration order, as drf-spectacular
   * types django-filter's filters: `integer`, `number`, `string` (`format: date-time` for
   * date-times), `boolean` (`isnull` too), an `enum` for choices. `in` and `range` are one
   * comma-separated string, as django-filter reads them (`?id__in=1,2`), not an array:
   * generated clients (openapi-fetch) send an array as repeated parameters, which
   * django-filter reads as its last value. Described by the declaration's `description`,
   * else django-filter's label (`Score is greater than or equal to`) and, for `in` and
   * `range`, its help text.
   */
  openApiParameters(): OpenApiParameter[] {
    return this.params.map((p) => {
      const list = p.lookup === 'in' || p.lookup === 'range'
      const schema: JsonObject = list ? { type: 'string' } : p.type === 'choice' ? { type: 'string', enum: [...p.choices] } : { ...TYPE_SCHEMA[p.type] }
      const description = p.description ?? (list ? `${p.label}. ${CSV_HELP}` : p.label)
      return { name: p.name, in: 'query', required: false, description, schema }
    })
  }

  /**
   * The parameters as the browsable page's filter form shows them (django-filter's form):
   * name, label, value type, the choices of a choice filter, the help text (`in` and
   * `range`: django-filter's; else the declaration's description) and whether the value is
   * a comma-separated list.
   */
  formFields(): readonly { readonly name: string; readonly label: string; readonly type: FilterType; readonly choices: readonly string[]; readonly help: string | null; readonly commaSeparated: boolean }[] {
    return this.params.map((p) => {
      const commaSeparated = p.lookup === 'in' || p.lookup === 'range'
      return { name: p.name, label: p.label, type: p.type, choices: p.choices, help: commaSeparated ? CSV_HELP : (p.description ?? null), commaSeparated }
    })
  }
}
