import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import type { Condition, FilterValue } from '../core/filter-condition.js'
import type { DialectName } from './dialect-name.js'

/** What a condition needs of a column (a `KyselyPageSource` column spec is one). */
interface ColumnSpec {
  readonly ref: string
  readonly kind: string
}

/** Where a condition's value goes in the statement: the value itself, or a placeholder bound at each run. */
export type ValueSlot = (value: unknown) => Expression<unknown> | unknown

/** The first and last instants every dialect and driver stores (years 1–9999). */
const MIN_DATE = new Date(Date.UTC(2000, 0, 1))
MIN_DATE.setUTCFullYear(1) // Date.UTC reads years 0–99 as 1900–1999
const MAX_DATE = new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999))

/**
 * A filter value as the driver binds it for `column`: SQLite keeps timestamps as ISO text
 * and booleans as 0/1; a date outside years 1–9999 is clamped (every stored row compares
 * the same with the clamped value).
 */
export function bindFilterValue(value: FilterValue, dialect: DialectName): unknown {
  if (value instanceof Date) {
    const clamped = value.getTime() < MIN_DATE.getTime() ? MIN_DATE : value.getTime() > MAX_DATE.getTime() ? MAX_DATE : value
    return dialect === 'sqlite' ? clamped.toISOString() : clamped
  }
  if (typeof value === 'boolean' && dialect === 'sqlite') return value ? 1 : 0
  return value
}

/** Django's `prep_for_like_query`: `\`, `%` and `_` literal in a LIKE pattern (escape character `\`). */
export function escapeLike(value: string): string {
  let out = ''
  for (const ch of value) out += ch === '\\' || ch === '%' || ch === '_' ? `\\${ch}` : ch
  return out
}

/** The parameter of a LIKE-style text match: the escaped pattern, or PostgreSQL's `iexact` value as sent. */
function textValue(c: Extract<Condition, { kind: 'text' }>, dialect: DialectName): string {
  if (c.match === 'exact' && c.caseInsensitive && dialect === 'postgres') return c.value
  const escaped = escapeLike(c.value)
  return c.match === 'exact' ? escaped : c.match === 'contains' ? `%${escaped}%` : `${escaped}%`
}

/**
 * The values `conditionSql` hands its slot, in the same order, without building any SQL:
 * what one request binds to the placeholders of a statement compiled once for the
 * condition's shape.
 */
export function conditionValues(condition: Condition, dialect: DialectName, out: unknown[] = []): unknown[] {
  switch (condition.kind) {
    case 'compare':
      out.push(bindFilterValue(condition.value, dialect))
      break
    case 'in':
      for (const value of condition.values) out.push(bindFilterValue(value, dialect))
      break
    case 'text':
      out.push(condition.match === 'exact' && !condition.caseInsensitive ? bindFilterValue(condition.value, dialect) : textValue(condition, dialect))
      break
    case 'isNull':
      break
    case 'fullText':
    case 'regex':
      out.push(condition.value)
      break
    case 'and':
    case 'or':
      for (const c of condition.conditions) conditionValues(c, dialect, out)
  }
  return out
}

/**
 * `condition` as a parameterised SQL condition, as Django writes the lookups: every value
 * goes through `slot` (a bound parameter or a placeholder), never into the text, so the
 * text depends only on the condition's shape. Case-insensitive text matches: SQLite's
 * `LIKE … ESCAPE '\'` (which folds ASCII), PostgreSQL's `UPPER(col) LIKE UPPER($1)`.
 * @throws ConfigurationError for a field without a column, or full text / regex on SQLite.
 */
export function conditionSql(
  condition: Condition,
  dialect: DialectName,
  column: (field: string) => ColumnSpec,
  slot: ValueSlot,
): RawBuilder<SqlBool> {
  const param = (value: FilterValue, spec: ColumnSpec): RawBuilder<unknown> => {
    const bound = sql`${slot(bindFilterValue(value, dialect))}`
    if (dialect !== 'postgres' || typeof value !== 'number' || (spec.kind !== 'integer' && spec.kind !== 'bigint')) return bound
    // An untyped parameter compared with an int4 column is read as int4: a larger value would fail
    // to bind. int4 against int8 still uses the column's index; a fraction (a custom filter's, a
    // `number` filter on an integer column) fails as bigint too, so it is a double precision
    // (`shapeOf` tells the two apart).
    return Number.isSafeInteger(value) ? sql`cast(${bound} as bigint)` : sql`cast(${bound} as double precision)`
  }
  const pg = dialect === 'postgres'
  const build = (c: Condition): RawBuilder<SqlBool> => {
    switch (c.kind) {
      case 'compare': {
        const spec = column(c.field)
        return sql<SqlBool>`${sql.ref(spec.ref)} ${sql.raw(c.op)} ${param(c.value, spec)}`
      }
      case 'in': {
        const spec = column(c.field)
        if (c.values.length === 0) return sql<SqlBool>`1 = 0`
        return sql<SqlBool>`${sql.ref(spec.ref)} in (${sql.join(c.values.map((v) => param(v, spec)))})`
      }
      case 'text': {
        const spec = column(c.field)
        const ref = spec.kind === 'text' || !pg ? sql.ref(spec.ref) : sql`cast(${sql.ref(spec.ref)} as text)`
        if (c.match === 'exact' && !c.caseInsensitive) return sql<SqlBool>`${ref} = ${param(c.value, spec)}`
        const value = sql`${slot(textValue(c, dialect))}`
        if (!pg) return sql<SqlBool>`${ref} like ${value} escape '\\'`
        if (!c.caseInsensitive) return sql<SqlBool>`${ref} like ${value}`
        // iexact compares with `=` (the pattern escaping then changes nothing that matters: Django binds the escaped value too).
        if (c.match === 'exact') return sql<SqlBool>`upper(${ref}) = upper(${value})`
        return sql<SqlBool>`upper(${ref}) like upper(${value})`
      }
      case 'isNull':
        return sql<SqlBool>`${sql.ref(column(c.field).ref)} ${sql.raw(c.isNull ? 'is null' : 'is not null')}`
      case 'fullText':
      case 'regex': {
        if (!pg) throw new ConfigurationError('ERR_FILTER_SET', `a ${c.kind === 'fullText' ? 'full-text (@)' : 'regex ($)'} search needs PostgreSQL`)
        const ref = sql.ref(column(c.field).ref)
        return c.kind === 'fullText'
          ? sql<SqlBool>`to_tsvector(coalesce(cast(${ref} as text), '')) @@ plainto_tsquery(${sql`${slot(c.value)}`})`
          : sql<SqlBool>`cast(${ref} as text) ~* ${sql`${slot(c.value)}`}`
      }
      case 'and':
      case 'or':
        if (c.conditions.length === 0) return sql<SqlBool>`${sql.raw(c.kind === 'and' ? '1 = 1' : '1 = 0')}`
        return sql<SqlBool>`(${sql.join(c.conditions.map(build), sql.raw(c.kind === 'and' ? ' and ' : ' or '))})`
    }
  }
  return build(condition)
}
