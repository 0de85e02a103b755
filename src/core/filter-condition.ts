/** A value a condition compares with (parsed from the client's text by a filter). */
export type FilterValue = string | number | boolean | Date

/**
 * A filter's condition on the rows, independent of where they live: a `KyselyPageSource`
 * compiles it to parameterised SQL (values are always bound, never written into the text),
 * an `ArrayPageSource` tests it on each row. The built-in lookups return these, and so does
 * a custom filter. `field` names a field of the source (a `KyselyPageSource` column key).
 *
 * - `compare`: `field op value`.
 * - `in`: `field` equals one of `values` (none: no row).
 * - `text`: a string match as Django's lookups do it: `exact`, `contains` or `startswith`,
 *   `caseInsensitive` for `iexact`/`icontains`/`istartswith`; `%`, `_` and `\` in the value
 *   are literal.
 * - `isNull`: `field IS [NOT] NULL`.
 * - `fullText` (PostgreSQL only): `to_tsvector(field) @@ plainto_tsquery(value)`, the `@` search prefix.
 * - `regex` (PostgreSQL only): `field ~* value`, the `$` search prefix.
 * - `and` / `or`: every / some of `conditions` (an empty `and` is every row, an empty `or` none).
 */
export type Condition =
  | { readonly kind: 'compare'; readonly field: string; readonly op: '=' | '<' | '<=' | '>' | '>='; readonly value: FilterValue }
  | { readonly kind: 'in'; readonly field: string; readonly values: readonly FilterValue[] }
  | {
      readonly kind: 'text'
      readonly field: string
      readonly match: 'exact' | 'contains' | 'startswith'
      readonly caseInsensitive: boolean
      readonly value: string
    }
  | { readonly kind: 'isNull'; readonly field: string; readonly isNull: boolean }
  | { readonly kind: 'fullText' | 'regex'; readonly field: string; readonly value: string }
  | { readonly kind: 'and' | 'or'; readonly conditions: readonly Condition[] }

/**
 * What of a value the SQL text depends on: its type, and for a number whether it is a safe
 * integer (PostgreSQL binds one as `bigint` against an integer column, another as `double precision`).
 */
function valueTag(value: FilterValue): string {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'i' : 'f'
  return typeof value === 'string' ? 's' : typeof value === 'boolean' ? 'b' : 'd'
}

/**
 * The condition's shape: its structure without its values. Two conditions of one shape
 * compile to the same SQL text (the prepared statements are kept per shape); the values
 * are the parameters, in `valuesOf` order.
 */
export function shapeOf(condition: Condition): string {
  switch (condition.kind) {
    case 'compare':
      return `${condition.field}${condition.op}?${valueTag(condition.value)}`
    case 'in':
      return `${condition.field} in ${condition.values.map(valueTag).join('')}`
    case 'text':
      return `${condition.field} ${condition.caseInsensitive ? 'i' : ''}${condition.match}`
    case 'isNull':
      return `${condition.field} ${condition.isNull ? 'null' : 'notnull'}`
    case 'fullText':
    case 'regex':
      return `${condition.field} ${condition.kind}`
    case 'and':
    case 'or':
      return `${condition.kind}(${condition.conditions.map(shapeOf).join(',')})`
  }
}

/** The values of `condition`, in the order its SQL binds them. */
export function valuesOf(condition: Condition, out: FilterValue[] = []): FilterValue[] {
  switch (condition.kind) {
    case 'compare':
    case 'text':
    case 'fullText':
    case 'regex':
      out.push(condition.value)
      break
    case 'in':
      out.push(...condition.values)
      break
    case 'isNull':
      break
    case 'and':
    case 'or':
      for (const c of condition.conditions) valuesOf(c, out)
  }
  return out
}

/** `conditions` as one: the only one, or their `and`. `null` for none. */
export function allOf(conditions: readonly Condition[]): Condition | null {
  if (conditions.length === 0) return null
  return conditions.length === 1 ? (conditions[0] ?? null) : { kind: 'and', conditions }
}
