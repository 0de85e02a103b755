import type { Condition } from '../core/filter-condition.js'
import { matchesRow } from './filters/match-row.js'
import type { KeyValue, OrderingField, PositionSeekArgs, SeekArgs, SeekSource } from './paginator.js'

type Comparable = string | number | boolean | bigint

function comparable(value: unknown): Comparable | null {
  if (value instanceof Date) return value.getTime()
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value
  return null
}

/** Compares two field values; `null`/`undefined` sort first (keys with them are never accepted). */
function compareValues(a: unknown, b: unknown): number {
  const x = comparable(a)
  const y = comparable(b)
  if (x === null || y === null) return x === null ? (y === null ? 0 : -1) : 1
  return x < y ? -1 : x > y ? 1 : 0
}

function compareKeys(a: readonly unknown[], b: readonly unknown[], ordering: readonly OrderingField[]): number {
  for (let i = 0; i < ordering.length; i++) {
    const c = compareValues(a[i], b[i])
    if (c !== 0) return ordering[i]?.descending === true ? -c : c
  }
  return 0
}

/** Reads a field of a row: an own property of an object row. */
export type FieldReader<T> = (row: T, field: string) => unknown

const readProperty = <T>(row: T, field: string): unknown =>
  typeof row === 'object' && row !== null ? (row as Record<string, unknown>)[field] : undefined

/**
 * An in-memory collection as a page source (DRF paginates lists with `len()` and
 * slices). Supports cursor pagination by sorting a copy per seek: fine for the
 * small lists that live in memory. Its count is free, so every count strategy but
 * `{ capped }` and `'none'` counts it exactly.
 */
export class ArrayPageSource<T> implements SeekSource<T> {
  private readonly rows: readonly T[]
  private readonly read: FieldReader<T>

  constructor(rows: readonly T[], read: FieldReader<T> = readProperty) {
    this.rows = rows
    this.read = read
  }

  async count(): Promise<number> {
    return this.rows.length
  }

  /** `min(length, limit)`. */
  async countAtMost(limit: number): Promise<number> {
    return Math.min(this.rows.length, Math.max(0, limit))
  }

  /** `null`: an array's exact count is free, so `count: 'estimated'` takes it. */
  async estimatedCount(): Promise<number | null> {
    return null
  }

  /** `null`: an array's count is free, so `count: { cachedMs }` does not cache it. */
  countKey(): string | null {
    return null
  }

  async slice(offset: number, limit: number): Promise<readonly T[]> {
    return this.rows.slice(offset, offset + Math.max(0, limit))
  }

  async all(): Promise<readonly T[]> {
    return this.rows
  }

  /** A copy sorted by `ordering` (a stable sort: rows equal on every field keep their order). */
  orderedBy(ordering: readonly OrderingField[]): ArrayPageSource<T> {
    const keyed = this.rows.map((row) => ({ row, key: ordering.map((f) => this.read(row, f.field)) }))
    keyed.sort((a, b) => compareKeys(a.key, b.key, ordering))
    return new ArrayPageSource(
      keyed.map((r) => r.row),
      this.read,
    )
  }

  /**
   * The rows satisfying `condition`, in order (a `FilterSet`'s or `SearchFilter`'s). The
   * `i…` text matches fold case code point by code point (as PostgreSQL's `UPPER()`); full-text
   * and regex conditions are refused (a `TypeError`).
   */
  filtered(condition: Condition): ArrayPageSource<T> {
    return new ArrayPageSource(
      this.rows.filter((row) => matchesRow(row, condition, this.read)),
      this.read,
    )
  }

  keyOf(row: T, ordering: readonly OrderingField[]): readonly KeyValue[] {
    return ordering.map((f) => {
      const value = this.read(row, f.field)
      return typeof value === 'bigint' ? Number(value) : (value as KeyValue)
    })
  }

  acceptsKey(key: readonly KeyValue[], ordering: readonly OrderingField[]): boolean {
    if (key.length !== ordering.length) return false
    // A key value must have the type the field has in the data (a forged "abc" for a number is invalid).
    const sample = this.rows[0]
    return key.every((value, i) => {
      if (sample === undefined) return true
      const field = ordering[i]?.field ?? ''
      const actual = this.read(sample, field)
      if (actual instanceof Date) return value instanceof Date
      return typeof actual === typeof value || (typeof actual === 'bigint' && typeof value === 'number')
    })
  }

  async seek(args: SeekArgs): Promise<readonly T[]> {
    const { ordering, after, reverse, limit } = args
    const keyed = this.rows.map((row) => ({ row, key: ordering.map((f) => this.read(row, f.field)) }))
    const sign = reverse ? -1 : 1
    keyed.sort((a, b) => sign * compareKeys(a.key, b.key, ordering))
    const beyond = after === null ? keyed : keyed.filter((r) => sign * compareKeys(r.key, after, ordering) > 0)
    return beyond.slice(0, limit).map((r) => r.row)
  }

  /** DRF's semantics: first field strictly beyond `position` (nulls never), then `offset` rows skipped. */
  async seekPosition(args: PositionSeekArgs): Promise<readonly T[]> {
    const { ordering, position, offset, limit } = args
    const keyed = this.rows.map((row) => ({ row, key: ordering.map((f) => this.read(row, f.field)) }))
    keyed.sort((a, b) => compareKeys(a.key, b.key, ordering))
    const lead = ordering.slice(0, 1)
    const beyond = position === null ? keyed : keyed.filter((r) => comparable(r.key[0]) !== null && compareKeys(r.key, [position], lead) > 0)
    return beyond.slice(offset, offset + Math.max(0, limit)).map((r) => r.row)
  }
}
