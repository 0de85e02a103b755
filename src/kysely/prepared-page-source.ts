import { sql, type CompiledQuery, type Expression, type Kysely, type SelectQueryBuilder } from 'kysely'
import { promiseOf, type MaybePromise } from '../core/maybe-promise.js'
import type { KeyValue, OrderingField, PositionSeekArgs, SeekArgs, SeekSource } from '../pagination/paginator.js'
import type { DialectName } from './dialect-name.js'
import { countKeyOf, KyselyPageSource, planRows, type ColumnSpec, type CountableQuery, type QueryRunner } from './kysely-page-source.js'
import { bindCompiled, CompiledStatement, executeCompiled, parameterRef } from './prepared-query.js'
import { shapeOf, type Condition } from '../core/filter-condition.js'
import { conditionValues } from './filter-sql.js'

/** The placeholders of one shape: a parameter given a value at run time has one, an absent one is `undefined`. */
export type OptionalQueryParameters<P> = { readonly [K in keyof P]?: Expression<Exclude<P[K], undefined>> }

/** Options of `preparePageSource`. */
export interface PreparedPageSourceOptions<DB, TB extends keyof DB, O, P> {
  /** The Kysely instance the queries belong to (opened by `openDatabase` to run on the driver directly). */
  readonly db: QueryRunner
  readonly dialect: DialectName
  /** As `KyselyPageSource`'s `columns`. */
  readonly columns: Readonly<Record<string, ColumnSpec>>
  /** As `KyselyPageSource`'s `orderBy`. */
  readonly orderBy: readonly string[]
  /**
   * The filtered select query (no ORDER BY, LIMIT or OFFSET) for the parameters present in
   * `params`: a parameter with a value at run time is a placeholder here, an absent one is
   * `undefined` (so an optional filter is a branch). Called once per shape, never per request.
   */
  readonly query: (params: OptionalQueryParameters<P>) => SelectQueryBuilder<DB, TB, O>
  /** As `KyselyPageSource`'s `countQuery`, for the same parameters. @default `query` */
  readonly countQuery?: (params: OptionalQueryParameters<P>) => CountableQuery
  /** As `KyselyPageSource`'s `key`: with `countQuery`, a page's keys are read first, then its rows. */
  readonly key?: string
}

/** Reserved placeholder names of the statements' own values. */
const LIMIT = '$limit'
const OFFSET = '$offset'
const limitRef = parameterRef<number>(LIMIT)
/** How many page sizes get a statement with the size written in (page-size query parameters are capped). */
const MAX_LITERAL_LIMITS = 32
/** How many orderings (an ordering filter's choices) each shape keeps compiled. */
const MAX_ORDERINGS = 64
const offsetRef = parameterRef<number>(OFFSET)
/** How many filter shapes (which filters and search terms a request has) each shape keeps compiled. */
const MAX_FILTER_SHAPES = 256

/** One shape's source and statements, compiled when the shape is first used. */
class Shape<O> {
  readonly source: KyselyPageSource<unknown, never, O>
  private readonly db: Kysely<unknown>
  private countStatement?: CompiledStatement<{ count: number | string }>
  private countAtMostStatement?: CompiledStatement<{ count: number | string }>
  private estimateStatement?: CompiledStatement<Record<string, unknown>>
  private sliceStatement?: CompiledStatement<O>
  /** `slice` per page size: a literal LIMIT lets SQLite stop its sort early (a bound one costs 50 % more). */
  private readonly sliceBySize = new Map<number, CompiledStatement<O>>()
  private allStatement?: CompiledStatement<O>
  private readonly byOrdering = new Map<string, Shape<O>>()
  private readonly byFilter = new Map<string, Shape<O>>()
  /** How many filters this shape has had applied: names its placeholders apart from theirs. */
  readonly depth: number

  constructor(db: Kysely<unknown>, source: KyselyPageSource<unknown, never, O>, depth = 0) {
    this.db = db
    this.source = source
    this.depth = depth
  }

  /** The placeholder name of a filter's `index`th value at this depth. */
  filterSlot(index: number): string {
    return `$f${this.depth}_${index}`
  }

  /**
   * This shape with `condition` added: compiled once per condition shape (the values are
   * placeholders `filterSlot(i)`), the first few hundred kept.
   */
  filtered(condition: Condition): Shape<O> {
    const key = shapeOf(condition)
    let shape = this.byFilter.get(key)
    if (shape === undefined) {
      let index = 0
      const source = this.source.filtered(condition, () => parameterRef(this.filterSlot(index++)))
      shape = new Shape(this.db, source, this.depth + 1)
      if (this.byFilter.size < MAX_FILTER_SHAPES) this.byFilter.set(key, shape)
    }
    return shape
  }

  get count(): CompiledStatement<{ count: number | string }> {
    return (this.countStatement ??= new CompiledStatement(this.db, this.source.compileCount()))
  }

  get countAtMost(): CompiledStatement<{ count: number | string }> {
    return (this.countAtMostStatement ??= new CompiledStatement(this.db, this.source.compileCountAtMost(limitRef)))
  }

  get estimate(): CompiledStatement<Record<string, unknown>> {
    return (this.estimateStatement ??= new CompiledStatement(this.db, this.source.compileEstimatedCount()))
  }

  /** The page statement for `limit` rows: its own text for the first few page sizes, then one with a bound limit. */
  slice(limit: number): CompiledStatement<O> {
    let statement = this.sliceBySize.get(limit)
    if (statement !== undefined) return statement
    if (this.sliceBySize.size < MAX_LITERAL_LIMITS && Number.isSafeInteger(limit)) {
      statement = new CompiledStatement(this.db, this.source.compileSlice(offsetRef, sql.lit(limit)))
      this.sliceBySize.set(limit, statement)
      return statement
    }
    return (this.sliceStatement ??= new CompiledStatement(this.db, this.source.compileSlice(offsetRef, limitRef)))
  }

  get all(): CompiledStatement<O> {
    return (this.allStatement ??= new CompiledStatement(this.db, this.source.compileAll()))
  }

  /** This shape ordered by `ordering` (an ordering filter's choice): compiled once per ordering, the first few kept. */
  orderedBy(ordering: readonly OrderingField[]): Shape<O> {
    const key = ordering.map((f) => (f.descending ? `-${f.field}` : f.field)).join(',')
    let shape = this.byOrdering.get(key)
    if (shape === undefined) {
      shape = new Shape(this.db, this.source.orderedBy(ordering), this.depth)
      if (this.byOrdering.size < MAX_ORDERINGS) this.byOrdering.set(key, shape)
    }
    return shape
  }
}

/** The count in a `COUNT(*)` statement's rows (PostgreSQL's bigint may come as text). */
function countOf(rows: readonly { count: number | string }[]): number {
  return Number(rows[0]?.count ?? 0)
}

function firstPlanRows(rows: readonly Record<string, unknown>[]): number | null {
  return planRows(rows[0])
}

/** A promise of `value` (the methods whose contract is still a promise). */
function promised<T>(value: MaybePromise<T>): Promise<T> {
  return promiseOf(value)
}

/** One request's source: a shape and its parameter values. */
class BoundPageSource<O> implements SeekSource<O> {
  private readonly shape: Shape<O>
  private readonly values: Record<string, unknown>
  private readonly db: Kysely<unknown>

  constructor(db: Kysely<unknown>, shape: Shape<O>, values: Record<string, unknown>) {
    this.db = db
    this.shape = shape
    this.values = values
  }

  // Not `async`: each answers synchronously where the driver does (SQLite), else the driver's
  // one promise. A statement compiled on first use that fails to compile still answers a
  // rejected promise, never a throw.
  count(): MaybePromise<number> {
    try {
      return this.shape.count.executeMapped(this.values, countOf)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  countAtMost(limit: number): Promise<number> {
    if (limit <= 0) return Promise.resolve(0)
    try {
      return promised(this.shape.countAtMost.executeMapped(this.values, countOf, { [LIMIT]: limit }))
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  estimatedCount(): Promise<number | null> {
    if (this.shape.source.dialect !== 'postgres') return Promise.resolve(null)
    try {
      return promised(this.shape.estimate.executeMapped(this.values, firstPlanRows))
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  countKey(): string {
    const statement = this.shape.count
    return countKeyOf(statement.sql, statement.parameters(this.values))
  }

  slice(offset: number, limit: number): MaybePromise<readonly O[]> {
    if (limit <= 0) return []
    try {
      return this.shape.slice(limit).executeMapped(this.values, undefined, { [OFFSET]: offset, [LIMIT]: limit })
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  all(): Promise<readonly O[]> {
    try {
      return this.shape.all.execute(this.values)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  /** The same rows and values, ordered by `ordering` for the numbered styles and `all()` (`OrderingFilter`). */
  orderedBy(ordering: readonly OrderingField[]): SeekSource<O> {
    return new BoundPageSource(this.db, this.shape.orderedBy(ordering), this.values)
  }

  /**
   * The same query with `condition` added: one statement per condition shape, its values
   * bound as parameters (a value never changes the SQL text).
   */
  filtered(condition: Condition): SeekSource<O> {
    const shape = this.shape.filtered(condition)
    const values: Record<string, unknown> = { ...this.values }
    // The values in placeholder order, as the shape's compilation met them (no SQL built per request).
    const bound = conditionValues(condition, this.shape.source.dialect)
    for (let index = 0; index < bound.length; index++) values[this.shape.filterSlot(index)] = bound[index]
    return new BoundPageSource(this.db, shape, values)
  }

  keyOf(row: O, ordering: readonly OrderingField[]): readonly KeyValue[] {
    return this.shape.source.keyOf(row, ordering)
  }

  acceptsKey(key: readonly KeyValue[], ordering: readonly OrderingField[]): boolean {
    return this.shape.source.acceptsKey(key, ordering)
  }

  /** As `KyselyPageSource.drfPosition`: a DRF cursor's position as Django's field reads it. */
  drfPosition(text: string, field: string): KeyValue | null {
    return this.shape.source.drfPosition(text, field)
  }

  /** The keyset query `seek(args)` runs, its parameters bound (for `EXPLAIN`). */
  compileSeek(args: SeekArgs): CompiledQuery<O> {
    return bindCompiled(this.shape.source.compileSeek(args), this.values)
  }

  async seek(args: SeekArgs): Promise<readonly O[]> {
    return executeCompiled(this.db, this.shape.source.compileSeek(args), this.values)
  }

  async seekPosition(args: PositionSeekArgs): Promise<readonly O[]> {
    return executeCompiled(this.db, this.shape.source.compileSeekPosition(args), this.values)
  }
}

/**
 * A `KyselyPageSource` whose SQL is built and compiled once per shape (which optional
 * parameters are present), not per request: each request binds its values and runs the
 * statements on the driver (see `prepareQuery`). Page-number and limit/offset pages, every
 * count strategy and `all()` run prepared statements; cursor seeks are compiled per request
 * on the shape's query (their placeholders bound the same way).
 *
 * @example
 * const articles = preparePageSource({
 *   db, dialect, columns, orderBy: ['id'],
 *   query: (p: OptionalQueryParameters<{ author: string }>) => {
 *     let q = db.selectFrom('articles').select(['id', 'title'])
 *     if (p.author !== undefined) q = q.where('author_name', '=', p.author)
 *     return q
 *   },
 * })
 * listHandler({ source: (ctx) => articles({ author: queryParam(ctx.request.url, 'author') ?? undefined }), … })
 */
export function preparePageSource<DB, TB extends keyof DB, O, P extends object = Record<never, never>>(
  options: PreparedPageSourceOptions<DB, TB, O, P>,
): (values?: { readonly [K in keyof P]?: P[K] | undefined }) => SeekSource<O> {
  const db = options.db as unknown as Kysely<unknown>
  const shapes = new Map<string, Shape<O>>()
  const shapeOf = (present: readonly string[]): Shape<O> => {
    const key = present.join('\u0000')
    let shape = shapes.get(key)
    if (shape === undefined) {
      const params: Record<string, Expression<unknown>> = {}
      for (const name of present) params[name] = parameterRef(name)
      const refs = params as OptionalQueryParameters<P>
      const countQuery = options.countQuery?.(refs)
      const source = new KyselyPageSource({
        db: options.db,
        query: options.query(refs),
        dialect: options.dialect,
        columns: options.columns,
        orderBy: options.orderBy,
        ...(countQuery === undefined ? {} : { countQuery }),
        ...(options.key === undefined ? {} : { key: options.key }),
      }) as unknown as KyselyPageSource<unknown, never, O>
      shape = new Shape(db, source)
      shapes.set(key, shape)
    }
    return shape
  }
  return (values) => {
    const bound: Record<string, unknown> = {}
    const present: string[] = []
    if (values !== undefined) {
      for (const name of Object.keys(values).sort()) {
        const value = (values as Record<string, unknown>)[name]
        if (value !== undefined) {
          present.push(name)
          bound[name] = value
        }
      }
    }
    return new BoundPageSource(db, shapeOf(present), bound)
  }
}
