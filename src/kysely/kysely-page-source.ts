import { sql, type CompiledQuery, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import { bytesToHex } from '../core/encoding/hex.js'
import type { KeyValue, OrderingField, PositionSeekArgs, SeekArgs, SeekSource } from '../pagination/paginator.js'
import type { DialectName } from './dialect-name.js'
import { drfPositionAs, type DrfPositionKind } from '../pagination/drf-cursor.js'
import type { Condition } from '../core/filter-condition.js'
import { conditionSql, type ValueSlot } from './filter-sql.js'
import { resolvesIn } from './query-tables.js'

/**
 * The SQL type of an ordering column, which a cursor's position must fit: `integer` is a
 * 32-bit `integer`/`serial`, `bigint` a `bigint`/`bigserial` (safe integers), `number` a
 * floating or numeric column.
 */
export type ColumnKind = 'integer' | 'bigint' | 'number' | 'text' | 'timestamp' | 'boolean'

/** How an output field of the query maps to a column. */
export interface ColumnSpec {
  /** Qualified column reference, e.g. `'articles.created'`. */
  readonly ref: string
  readonly kind: ColumnKind
  /**
   * Few rows share a value (a timestamp, a slug). A cursor ordering of this field
   * plus the unique tiebreaker then seeks with one statement,
   * `a <= $1 AND (a < $1 OR id > $2)`, instead of a `UNION ALL` of one branch per
   * key prefix. That statement reads the rest of the cursor's tie group on every
   * page (mixed directions make the database sort it), so leave this unset for
   * low-cardinality fields such as a score: there the branches seek each range
   * through the index whatever the size of a tie group. The rows are the same
   * either way; only the cost differs. @default false
   */
  readonly nearlyUnique?: boolean
}

/** Any Kysely select query, whatever its tables and columns (`countQuery`: its rows are only counted). */
export type CountableQuery = Expression<unknown> & { readonly isSelectQueryBuilder: true }

/** What the source needs of a `Kysely` instance (any `Kysely<DB>` is one). */
export type QueryRunner = Pick<Kysely<unknown>, 'executeQuery' | 'getExecutor'>

/** Options of `KyselyPageSource`. */
export interface KyselyPageSourceOptions<DB, TB extends keyof DB, O> {
  /** The Kysely instance the query belongs to (used for COUNT and keyset unions). */
  readonly db: QueryRunner
  /** The filtered select query, without ORDER BY, LIMIT or OFFSET. */
  readonly query: SelectQueryBuilder<DB, TB, O>
  readonly dialect: DialectName
  /** Output field name → column, for every field a cursor or `orderBy` uses. */
  readonly columns: Readonly<Record<string, ColumnSpec>>
  /** Order for page-number and limit/offset pages (and `all()`), e.g. `['id']`. */
  readonly orderBy: readonly string[]
  /**
   * A cheaper query with exactly as many rows as `query`, for `count()`, `countAtMost()`,
   * `estimatedCount()` and `countKey()`: the same filters without the joins and columns that
   * cannot change the number of rows (an inner join along a non-null foreign key to a primary
   * key, a left join to a unique key). Its rows are never read, only counted. @default `query`
   *
   * @example
   * countQuery: db.selectFrom('articles').select('articles.id').where('articles.author_id', '=', 7)
   */
  readonly countQuery?: CountableQuery
  /**
   * A field of `columns` whose column is unique and never null (the primary key, e.g. `'id'`).
   * With it and a `countQuery` (which then selects from the key's table, its rows the same as
   * `query`'s), a page-number or limit/offset page is read in two steps whenever its ordering
   * and filters need only the count query's tables: the page's keys from `countQuery`, ordered
   * and cut there (an index often answers alone), then `query`'s rows and joins for those keys.
   * The rows are the same; the joins no longer run for each row a filter matches before the
   * sort, nor for the rows an offset skips.
   *
   * @example
   * key: 'id'
   */
  readonly key?: string
}

/** A statement parameter as it goes into a cache key (bigints and binary data have no JSON form). */
function keyValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`
  if (value instanceof Uint8Array) return `0x${bytesToHex(value)}`
  return value
}

/** A count cache key: equal keys count the same rows (the statement's text and parameters). */
export function countKeyOf(text: string, parameters: readonly unknown[]): string {
  return `${text}\u0000${JSON.stringify(parameters, keyValue)}`
}

/** The planner's row estimate from `EXPLAIN (FORMAT JSON)`'s output (parsed by node-pg, or text). */
export function planRows(row: Readonly<Record<string, unknown>> | undefined): number | null {
  let plan: unknown = row?.['QUERY PLAN']
  if (typeof plan === 'string') plan = JSON.parse(plan)
  const top = Array.isArray(plan) ? (plan[0] as { Plan?: { 'Plan Rows'?: unknown } } | undefined) : undefined
  const rows = top?.Plan?.['Plan Rows']
  return typeof rows === 'number' && Number.isFinite(rows) ? Math.max(0, Math.round(rows)) : null
}

/** The fields `condition` names. */
function conditionFields(condition: Condition, out: string[] = []): string[] {
  if ('conditions' in condition) {
    for (const c of condition.conditions) conditionFields(c, out)
  } else out.push(condition.field)
  return out
}

/** `countQuery` with `where` added, when every column of `refs` resolves in it; else `undefined`. */
function filteredCountQuery(countQuery: CountableQuery, refs: readonly string[], where: RawBuilder<SqlBool>): CountableQuery | undefined {
  const builder = countQuery as CountableQuery & { where?: unknown }
  if (typeof builder.where !== 'function') return undefined
  if (!resolvesIn(countQuery, refs)) return undefined
  return (builder.where as (expression: RawBuilder<SqlBool>) => CountableQuery).call(countQuery, where)
}

function parseOrder(items: readonly string[]): OrderingField[] {
  return items.map((item) => (item.startsWith('-') ? { field: item.slice(1), descending: true } : { field: item, descending: false }))
}

const INT32_MIN = -2_147_483_648
const INT32_MAX = 2_147_483_647

/**
 * An ISO 8601 UTC timestamp as the sources write them (`2024-01-01T00:07:00.123Z`):
 * checked character by character, so a client's string is never handed to the
 * database's own (more lenient, dialect-specific) timestamp parser.
 */
function isIsoTimestamp(value: string): boolean {
  if (value.length < 20 || value.length > 30 || !value.endsWith('Z')) return false
  const shape = 'dddd-dd-ddTdd:dd:dd'
  for (let i = 0; i < shape.length; i++) {
    const code = value.charCodeAt(i)
    if (shape[i] === 'd' ? code < 0x30 || code > 0x39 : value[i] !== shape[i]) return false
  }
  const fraction = value.slice(19, -1)
  if (fraction !== '' && (fraction[0] !== '.' || fraction.length < 2 || !/^\.[0-9]{1,9}$/.test(fraction))) return false
  const time = Date.parse(value)
  // Date.parse rolls no fields over for this shape, but rejects 2024-02-30 etc. as NaN.
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 19) === value.slice(0, 19)
}

/** Years every dialect and driver round-trips (node-pg writes a year past 9999 as `+yyyyyy`). */
function isStorableDate(value: Date): boolean {
  const year = value.getUTCFullYear()
  return !Number.isNaN(value.getTime()) && year >= 1 && year <= 9999
}

/** How each column kind converts a DRF cursor position (Django's model fields). */
const POSITION_KIND: Readonly<Record<ColumnKind, DrfPositionKind>> = {
  integer: 'integer',
  bigint: 'integer',
  number: 'number',
  text: 'text',
  boolean: 'boolean',
  timestamp: 'timestamp',
}

/** The range of an integer column kind (`null`: not an integer column). */
function integerRange(kind: ColumnKind): readonly [number, number] | null {
  if (kind === 'integer') return [INT32_MIN, INT32_MAX]
  if (kind === 'bigint') return [-(2 ** 63), 2 ** 63 - 1]
  return null
}

/**
 * True when a cursor's position value fits the column's type, so it can be bound without
 * a database error: a client-controlled value that does not is an invalid cursor (404),
 * never a 500 from the driver.
 */
function accepts(kind: ColumnKind, value: KeyValue): boolean {
  switch (kind) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX
    case 'bigint':
      return typeof value === 'number' && Number.isSafeInteger(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'text':
      // PostgreSQL text cannot hold NUL.
      return typeof value === 'string' && !value.includes('\0')
    case 'boolean':
      return typeof value === 'boolean'
    case 'timestamp':
      return value instanceof Date ? isStorableDate(value) : typeof value === 'string' && isIsoTimestamp(value)
  }
}

/**
 * A Kysely select query as a page source.
 *
 * - Page number and limit/offset: `SELECT count(*) FROM (countQuery ?? query)` plus
 *   `LIMIT/OFFSET`; `countAtMost` and `estimatedCount` serve the cheaper count strategies.
 * - Cursor: keyset conditions on the full key, so the cost of a page does not grow
 *   with its depth. A single (unique) field: a plain `a > $1`. On PostgreSQL, when
 *   every field has the same direction, one row-value comparison `(a, b) > ($1, $2)`
 *   that the `(a, b)` index serves (the expanded `OR` form defeats it). Two fields
 *   whose first is declared `nearlyUnique` (a timestamp plus the tiebreaker): one
 *   statement `a <= $1 AND (a < $1 OR b > $2)`, which reads at most one small tie
 *   group. Otherwise (SQLite, whose row values seek on the first column only, and
 *   mixed directions such as `-score, id` anywhere) a `UNION ALL` of one branch per
 *   key prefix (`a = $1 AND b > $2`, then `a < $1`), each ordered and limited so
 *   each seeks its own index range however large a tie group is.
 */
export class KyselyPageSource<DB, TB extends keyof DB, O> implements SeekSource<O> {
  private readonly options: KyselyPageSourceOptions<DB, TB, O>
  private readonly order: OrderingField[]

  /** `query` before any `filtered` condition: the second step of a page read by its keys (see `key`). */
  private rowsQuery: SelectQueryBuilder<DB, TB, O>
  /** `pageKeys()`'s answer, once worked out. */
  private keysQuery?: SelectQueryBuilder<DB, TB, O> | null

  constructor(options: KyselyPageSourceOptions<DB, TB, O>) {
    this.options = options
    this.order = parseOrder(options.orderBy)
    for (const f of this.order) this.column(f.field)
    if (options.key !== undefined) this.column(options.key)
    this.rowsQuery = options.query
  }

  /** The dialect the SQL is written for. */
  get dialect(): DialectName {
    return this.options.dialect
  }

  private column(field: string): ColumnSpec {
    const spec = this.options.columns[field]
    if (spec === undefined) throw new ConfigurationError('ERR_PAGE_SOURCE_COLUMN', `KyselyPageSource: no column for field "${field}"`)
    return spec
  }

  private ordered(query: SelectQueryBuilder<DB, TB, O>, ordering: readonly OrderingField[]): SelectQueryBuilder<DB, TB, O> {
    let q = query
    for (const f of ordering) q = q.orderBy(sql.ref(this.column(f.field).ref), f.descending ? 'desc' : 'asc')
    return q
  }

  private get counted(): Expression<unknown> {
    return this.options.countQuery ?? this.options.query
  }

  private countStatement(): RawBuilder<{ count: number | string }> {
    return sql<{ count: number | string }>`select count(*) as count from (${this.counted}) as page_source`
  }

  /** The compiled `count()` statement. */
  compileCount(): CompiledQuery<{ count: number | string }> {
    return this.countStatement().compile(this.options.db)
  }

  /** The compiled `countAtMost(limit)` statement (`limit` a number or a placeholder). */
  compileCountAtMost(limit: number | Expression<number>): CompiledQuery<{ count: number | string }> {
    return sql<{ count: number | string }>`select count(*) as count from (select 1 as one from (${this.counted}) as page_source limit ${limit}) as capped`.compile(
      this.options.db,
    )
  }

  /** The compiled `estimatedCount()` statement (PostgreSQL's `EXPLAIN (FORMAT JSON)` of the counted query). */
  compileEstimatedCount(): CompiledQuery<Record<string, unknown>> {
    return sql<Record<string, unknown>>`explain (format json) ${this.counted}`.compile(this.options.db)
  }

  /** The compiled `slice(offset, limit)` statement (each a number or a placeholder). */
  compileSlice(offset: number | Expression<number>, limit: number | Expression<number>): CompiledQuery<O> {
    const keys = this.pageKeys()
    if (keys === null) return this.ordered(this.options.query, this.order).limit(limit).offset(offset).compile()
    // The page's keys first (ordered and cut in the count query), then the rows and joins of those keys only.
    const page = this.ordered(keys, this.order).limit(limit).offset(offset)
    return this.ordered(this.rowsQuery.where(sql.ref(this.column(this.options.key ?? '').ref), 'in', page), this.order).compile()
  }

  /**
   * The count query selecting `key` (see the option), or `null` when the page cannot be read
   * in two steps: no `key` or `countQuery`, or a column of the key or the ordering outside the
   * count query's tables.
   */
  private pageKeys(): SelectQueryBuilder<DB, TB, O> | null {
    // Once per source: its count query and ordering never change.
    if (this.keysQuery !== undefined) return this.keysQuery
    const { key, countQuery } = this.options
    const builder = countQuery as unknown as (SelectQueryBuilder<DB, TB, O> & { clearSelect?: unknown }) | undefined
    const keyRef = key === undefined ? null : this.column(key).ref
    const usable =
      keyRef !== null && countQuery !== undefined && typeof builder?.clearSelect === 'function' && resolvesIn(countQuery, [keyRef, ...this.order.map((f) => this.column(f.field).ref)])
    this.keysQuery = usable ? (builder.clearSelect().select(sql.ref(keyRef).as('page_key')) as unknown as SelectQueryBuilder<DB, TB, O>) : null
    return this.keysQuery
  }

  /** The compiled `all()` statement. */
  compileAll(): CompiledQuery<O> {
    return this.ordered(this.options.query, this.order).compile()
  }

  async count(): Promise<number> {
    const { rows } = await this.options.db.executeQuery(this.compileCount())
    return Number(rows[0]?.count ?? 0)
  }

  /** `min(count, limit)`: the count of a sub-select that stops after `limit` rows. */
  async countAtMost(limit: number): Promise<number> {
    if (limit <= 0) return 0
    const { rows } = await this.options.db.executeQuery(this.compileCountAtMost(limit))
    return Number(rows[0]?.count ?? 0)
  }

  /**
   * PostgreSQL: the planner's estimate of the counted query's rows, from
   * `EXPLAIN (FORMAT JSON)` (a plan, no execution; filters and joins included, scaled by
   * the table's current size). As good as the statistics: run `ANALYZE` (autovacuum does).
   * SQLite keeps no such estimate: `null`.
   */
  async estimatedCount(): Promise<number | null> {
    if (this.options.dialect !== 'postgres') return null
    const { rows } = await this.options.db.executeQuery(this.compileEstimatedCount())
    return planRows(rows[0])
  }

  /** The count statement's text and parameters: equal keys count the same rows. */
  countKey(): string {
    const compiled = this.compileCount()
    return countKeyOf(compiled.sql, compiled.parameters)
  }

  /** This query ordered by `ordering` for the numbered styles and `all()` (a field without a column is a `ConfigurationError`). */
  orderedBy(ordering: readonly OrderingField[]): KyselyPageSource<DB, TB, O> {
    const source = new KyselyPageSource({ ...this.options, orderBy: ordering.map((f) => (f.descending ? `-${f.field}` : f.field)) })
    source.rowsQuery = this.rowsQuery
    return source
  }

  /**
   * This query with `condition` added (a `FilterSet`'s or `SearchFilter`'s), as parameterised
   * SQL; `slot` places each value (default: bound as a parameter). The `countQuery` gets the
   * condition too when every column it names is qualified by a table (or alias) of the
   * count query's own FROM and JOINs (the count then keeps its joins out); otherwise the copy
   * counts with its filtered `query`.
   */
  filtered(condition: Condition, slot: ValueSlot = (value) => value): KyselyPageSource<DB, TB, O> {
    // Built once: both statements bind the same placeholders (a slot is called once per value).
    const where = conditionSql(condition, this.options.dialect, (field) => this.column(field), slot)
    const { countQuery, ...options } = this.options
    const query = this.options.query.where(where)
    const counted = countQuery === undefined ? undefined : filteredCountQuery(countQuery, conditionFields(condition).map((field) => this.column(field).ref), where)
    const source = new KyselyPageSource({ ...options, query, ...(counted === undefined ? {} : { countQuery: counted }) })
    // A page read in two steps filters its keys in the count query: the rows of those keys need no filter again.
    source.rowsQuery = this.rowsQuery
    return source
  }

  async slice(offset: number, limit: number): Promise<readonly O[]> {
    if (limit <= 0) return []
    return (await this.options.db.executeQuery(this.compileSlice(offset, limit))).rows
  }

  async all(): Promise<readonly O[]> {
    return (await this.options.db.executeQuery(this.compileAll())).rows
  }

  keyOf(row: O, ordering: readonly OrderingField[]): readonly KeyValue[] {
    return ordering.map((f) => {
      const value = (row as Record<string, unknown>)[f.field]
      if (typeof value === 'bigint') return Number(value)
      if (value === null || value === undefined) {
        throw new ConfigurationError('ERR_CURSOR_NULL', `cursor ordering field "${f.field}" is null or not selected`)
      }
      return value as KeyValue
    })
  }

  acceptsKey(key: readonly KeyValue[], ordering: readonly OrderingField[]): boolean {
    return key.length === ordering.length && key.every((value, i) => accepts(this.column(ordering[i]?.field ?? '').kind, value))
  }

  /** A key value as the driver binds it: SQLite stores timestamps as ISO text and booleans as 0/1. */
  private bind(field: string, value: KeyValue): KeyValue {
    if (this.options.dialect !== 'sqlite') return value
    if (value instanceof Date) return value.toISOString()
    if (typeof value === 'boolean') return value ? 1 : 0
    void field
    return value
  }

  /** The compiled keyset query for `args` (what `seek` runs; tests EXPLAIN it). */
  compileSeek(args: SeekArgs): CompiledQuery<O> {
    const { ordering, after, reverse, limit } = args
    // Effective directions: reversing walks every field the other way.
    const dirs = ordering.map((f) => ({ ...f, descending: f.descending !== reverse }))
    const base = this.options.query
    if (after === null) return this.ordered(base, dirs).limit(limit).compile()
    const refs = dirs.map((f) => sql.ref(this.column(f.field).ref))
    const values = after.map((v, i) => sql`${this.bind(dirs[i]?.field ?? '', v)}`)
    const beyond = (i: number): RawBuilder<SqlBool> =>
      sql<SqlBool>`${refs[i]} ${sql.raw(dirs[i]?.descending === true ? '<' : '>')} ${values[i]}`
    // One field (a unique one): a plain range seek, no union or sub-select to plan.
    if (dirs.length === 1) return this.ordered(base.where(beyond(0)), dirs).limit(limit).compile()
    const uniform = dirs.every((f) => f.descending === dirs[0]?.descending)
    if (this.options.dialect === 'postgres' && uniform) {
      const op = dirs[0]?.descending === true ? sql.raw('<') : sql.raw('>')
      const cond = sql<SqlBool>`(${sql.join(refs)}) ${op} (${sql.join(values)})`
      return this.ordered(base.where(cond), dirs).limit(limit).compile()
    }
    const lead = dirs[0]
    if (dirs.length === 2 && lead !== undefined && this.column(lead.field).nearlyUnique === true) {
      // Declared nearly unique: tie groups are small, so one statement that seeks the
      // leading field's range and sorts its few ties beats planning a union.
      const upTo = sql.raw(lead.descending ? '<=' : '>=')
      const cond = sql<SqlBool>`${refs[0]} ${upTo} ${values[0]} and (${beyond(0)} or ${beyond(1)})`
      return this.ordered(base.where(cond), dirs).limit(limit).compile()
    }
    // One branch per key prefix: equal on fields 0..i-1, strictly beyond on field i.
    const branches = dirs.map((_, i) => {
      let q = base
      for (let j = 0; j < i; j++) q = q.where(sql<SqlBool>`${refs[j]} = ${values[j]}`)
      q = q.where(beyond(i))
      return this.ordered(q, dirs).limit(limit)
    })
    const outerOrder = sql.join(dirs.map((f) => sql`${sql.ref(f.field)} ${sql.raw(f.descending ? 'desc' : 'asc')}`))
    const union = sql.join(
      branches.map((b, i) => sql`select * from (${b}) as ${sql.ref(`seek_${i}`)}`),
      sql` union all `,
    )
    const raw: RawBuilder<O> = sql<O>`${union} order by ${outerOrder} limit ${limit}`
    return raw.compile(this.options.db)
  }

  /**
   * The compiled position seek for `args` (DRF's cursor semantics): `WHERE first <op> $1`
   * on the first ordering field only, the full ordering, `LIMIT` and `OFFSET`.
   */
  compileSeekPosition(args: PositionSeekArgs): CompiledQuery<O> {
    const { ordering, position, offset, limit } = args
    const lead = ordering[0]
    let q = this.options.query
    if (position !== null && lead !== undefined) {
      const range = integerRange(this.column(lead.field).kind)
      if (range !== null && typeof position === 'number' && (position < range[0] || position > range[1])) {
        // Beyond the column's range (Django compares `score < 2147483648` as the database does):
        // every row or none, decided here, since the value cannot be bound as the column's type.
        const everyRow = lead.descending === position > range[1]
        if (!everyRow) q = q.where(sql<SqlBool>`1 = 0`)
      } else {
        const op = sql.raw(lead.descending ? '<' : '>')
        q = q.where(sql<SqlBool>`${sql.ref(this.column(lead.field).ref)} ${op} ${this.bind(lead.field, position)}`)
      }
    }
    return this.ordered(q, ordering).limit(limit).offset(offset).compile()
  }

  /**
   * The value Django's model field makes of a DRF position for `field` (`drfPositionAs` for
   * the column's kind), or `null` (`Invalid cursor`). Text with a NUL is refused (PostgreSQL).
   */
  drfPosition(text: string, field: string): KeyValue | null {
    const kind = this.column(field).kind
    const value = drfPositionAs(text, POSITION_KIND[kind])
    if (value === null) return null
    if (integerRange(kind) !== null) return value
    return accepts(kind, value) ? value : null
  }

  async seekPosition(args: PositionSeekArgs): Promise<readonly O[]> {
    const result = await this.options.db.executeQuery(this.compileSeekPosition(args))
    return result.rows
  }

  async seek(args: SeekArgs): Promise<readonly O[]> {
    const compiled = this.compileSeek(args)
    const result = await this.options.db.executeQuery(compiled)
    return result.rows
  }
}
