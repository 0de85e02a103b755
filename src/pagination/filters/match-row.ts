import type { Condition, FilterValue } from '../../core/filter-condition.js'

/** A comparable form of a value: dates by time, bigints as numbers. */
function comparable(value: unknown): string | number | boolean | null {
  if (value instanceof Date) return value.getTime()
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  return null
}

/** Compares a row's value with a filter value of the field's type; a date column may hold ISO text (SQLite rows). */
function compare(actual: unknown, expected: FilterValue): number | null {
  const b = comparable(expected)
  let a = comparable(actual)
  if (expected instanceof Date && typeof actual === 'string') a = Date.parse(actual)
  if (a === null || b === null || typeof a !== typeof b) return null
  return a < b ? -1 : a > b ? 1 : 0
}

/** ASCII needs no per-character look (the common case). */
const NON_ASCII = /[^\0-\x7f]/

/**
 * Case folding for the `i…` lookups over arrays, as PostgreSQL's `UPPER()` (Django's lookups
 * there) folds under a UTF-8 locale: each code point on its own (Unicode's simple mapping),
 * so `ß` and `ﬁ` stay (`toUpperCase` makes them `SS` and `FI`). SQLite's `LIKE` folds ASCII only.
 */
function fold(text: string, caseInsensitive: boolean): string {
  if (!caseInsensitive) return text
  if (!NON_ASCII.test(text)) return text.toUpperCase()
  let out = ''
  for (const ch of text) {
    const upper = ch.toUpperCase()
    // A special mapping to several code points (ß → SS): the simple mapping keeps the code point.
    out += [...upper].length === 1 ? upper : ch
  }
  return out
}

/**
 * True when `row` satisfies `condition` (`ArrayPageSource`'s filtering), reading fields
 * with `read`. A missing or null field matches only `isNull`. `fullText` and `regex` are
 * refused: they have no in-memory meaning (and a client's regex would run unbounded).
 */
export function matchesRow<T>(row: T, condition: Condition, read: (row: T, field: string) => unknown): boolean {
  switch (condition.kind) {
    case 'compare': {
      const c = compare(read(row, condition.field), condition.value)
      if (c === null) return false
      switch (condition.op) {
        case '=':
          return c === 0
        case '<':
          return c < 0
        case '<=':
          return c <= 0
        case '>':
          return c > 0
        case '>=':
          return c >= 0
      }
      return false
    }
    case 'in': {
      const actual = read(row, condition.field)
      return condition.values.some((v) => compare(actual, v) === 0)
    }
    case 'text': {
      const actual = read(row, condition.field)
      if (typeof actual !== 'string') return false
      const a = fold(actual, condition.caseInsensitive)
      const v = fold(condition.value, condition.caseInsensitive)
      return condition.match === 'exact' ? a === v : condition.match === 'contains' ? a.includes(v) : a.startsWith(v)
    }
    case 'isNull': {
      const actual = read(row, condition.field)
      return (actual === null || actual === undefined) === condition.isNull
    }
    case 'fullText':
    case 'regex':
      throw new TypeError(`ArrayPageSource cannot filter with a ${condition.kind} condition (PostgreSQL only)`)
    case 'and':
      return condition.conditions.every((c) => matchesRow(row, c, read))
    case 'or':
      return condition.conditions.some((c) => matchesRow(row, c, read))
  }
}
