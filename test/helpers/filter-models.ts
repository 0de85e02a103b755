/**
 * What a filtered source should answer, for tests comparing `KyselyPageSource.filtered` with
 * `ArrayPageSource.filtered`: on PostgreSQL the array source itself (its case folding is
 * PostgreSQL's `UPPER()`); on SQLite the array source on a condition rewritten as SQLite's
 * `LIKE` (Django's lookups there) matches: `contains`, `startswith` and every case-insensitive
 * match fold ASCII letters only (`LIKE` is case-insensitive for ASCII even for `contains`,
 * and for no other letter), `exact` stays `=`.
 */
import type { Condition, FilterValue } from '../../src/core/filter-condition.js'
import { ArrayPageSource } from '../../src/pagination/array-page-source.js'

/** ASCII letters upper-cased, nothing else (SQLite's `LIKE` and `upper()` without ICU). */
export function asciiUpper(text: string): string {
  return text.replace(/[a-z]+/g, (s) => s.toUpperCase())
}

/** The field name under which the model reads a field ASCII-folded. */
const FOLDED = '\u0000ascii:'

/** `condition` as SQLite's `LIKE` decides it, over fields read through `FOLDED` names. */
function sqliteCondition(condition: Condition): Condition {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return { kind: condition.kind, conditions: condition.conditions.map(sqliteCondition) }
    case 'text':
      if (condition.match === 'exact' && !condition.caseInsensitive) return condition
      return { ...condition, field: FOLDED + condition.field, caseInsensitive: false, value: asciiUpper(condition.value) }
    default:
      return condition
  }
}

function readFolded(row: Record<string, unknown>, field: string): unknown {
  if (!field.startsWith(FOLDED)) return row[field]
  const value = row[field.slice(FOLDED.length)]
  return typeof value === 'string' ? asciiUpper(value) : value
}

/** The rows (in their order) that `condition` admits on `dialect`. */
export async function expectedRows<T extends object>(rows: readonly T[], condition: Condition, dialect: 'sqlite' | 'postgres'): Promise<readonly T[]> {
  if (dialect === 'postgres') return new ArrayPageSource(rows).filtered(condition).all()
  return new ArrayPageSource(rows, readFolded as unknown as (row: T, field: string) => unknown).filtered(sqliteCondition(condition)).all()
}

/** A value of the same SQL shape as `value` (`shapeOf` tells numbers that are safe integers from others). */
function canonicalValue(value: FilterValue): FilterValue {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 0 : 0.5
  if (typeof value === 'string') return 'x'
  if (typeof value === 'boolean') return true
  return new Date(Date.UTC(2000, 0, 1))
}

/** `condition` with every value replaced by a fixed one of its type: the same shape, other values. */
export function canonical(condition: Condition): Condition {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return { kind: condition.kind, conditions: condition.conditions.map(canonical) }
    case 'in':
      return { ...condition, values: condition.values.map(canonicalValue) }
    case 'isNull':
      return condition
    case 'compare':
      return { ...condition, value: canonicalValue(condition.value) }
    default:
      return { ...condition, value: 'x' }
  }
}

/** True when `condition` has a part only PostgreSQL runs and arrays refuse (full text, regex). */
export function postgresOnly(condition: Condition): boolean {
  if (condition.kind === 'and' || condition.kind === 'or') return condition.conditions.some(postgresOnly)
  return condition.kind === 'fullText' || condition.kind === 'regex'
}
