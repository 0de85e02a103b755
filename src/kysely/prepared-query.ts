import { sql, type CompiledQuery, type Expression, type Kysely, type QueryResult } from 'kysely'
import { promiseOf, type MaybePromise } from '../core/maybe-promise.js'
import { ConfigurationError } from '../core/errors.js'
import { directDriverOf, type DirectDriver } from './direct-driver.js'

/** A named placeholder in a query compiled once: the value is bound at each run. */
class Slot {
  constructor(readonly name: string) {}
}

/** A placeholder for the run-time value `name` (an `Expression` Kysely accepts wherever a value goes). */
export function parameterRef<T>(name: string): Expression<T> {
  return sql<T>`${new Slot(name)}`
}

/** The placeholders a prepared query's builder receives: one per parameter of `P`. */
export type QueryParameters<P> = { readonly [K in keyof P]-?: Expression<Exclude<P[K], undefined>> }

/** Anything Kysely compiles without an executor argument (query builders). */
export interface Compilable<O> {
  compile(): CompiledQuery<O>
}

/** Where each parameter of a compiled statement comes from: a fixed value, or a run-time one by name. */
type Binding = { readonly fixed: unknown } | { readonly name: string }

/**
 * A statement Kysely compiled once: each run binds its parameters and runs the SQL text on
 * the driver (see `DirectDriver`), or through `Kysely.executeQuery` for a Kysely instance
 * that `openDatabase` did not open. Result plugins of such an instance still apply; the
 * direct path returns the driver's rows as Kysely's built-in dialects do.
 */
export class CompiledStatement<O> {
  /** The SQL text (the same for every run). */
  readonly sql: string
  private readonly compiled: CompiledQuery<O>
  private readonly bindings: readonly Binding[]
  private readonly db: Pick<Kysely<unknown>, 'executeQuery'>
  private readonly driver: DirectDriver | undefined

  constructor(db: Pick<Kysely<unknown>, 'executeQuery'>, compiled: CompiledQuery<O>) {
    this.db = db
    this.compiled = compiled
    this.sql = compiled.sql
    this.bindings = compiled.parameters.map((p) => (p instanceof Slot ? { name: p.name } : { fixed: p }))
    this.driver = directDriverOf(db)
  }

  /**
   * The statement's parameters with `values` bound (a name `values` lacks is looked up in
   * `extra`, e.g. a page's offset and limit, so no merged object is made per run).
   * @throws ConfigurationError when a parameter has no value
   */
  parameters(values: Readonly<Record<string, unknown>>, extra?: Readonly<Record<string, unknown>>): unknown[] {
    const out = new Array<unknown>(this.bindings.length)
    for (let i = 0; i < out.length; i++) {
      const binding = this.bindings[i] as Binding
      if ('fixed' in binding) out[i] = binding.fixed
      else {
        let value = values[binding.name]
        if (value === undefined && extra !== undefined) value = extra[binding.name]
        if (value === undefined) throw new ConfigurationError('ERR_QUERY_PARAMETER', `prepared query parameter "${binding.name}" has no value`)
        out[i] = value
      }
    }
    return out
  }

  /** The rows of one run with `values` bound (a promise even where the driver answered synchronously). */
  execute(values: Readonly<Record<string, unknown>> = {}): Promise<O[]> {
    const rows = this.executeMapped(values, undefined)
    return promiseOf(rows)
  }

  /**
   * `map` of the rows of one run with `values` (and `extra`) bound (the rows without `map`):
   * synchronous where the driver answers synchronously (SQLite), else one promise on the
   * driver's path. A failure is a rejected promise, never a throw.
   */
  executeMapped<T = O[]>(values: Readonly<Record<string, unknown>>, map: ((rows: O[]) => T) | undefined, extra?: Readonly<Record<string, unknown>>): MaybePromise<T> {
    let parameters: unknown[]
    try {
      parameters = this.parameters(values, extra)
    } catch (error) {
      return Promise.reject(error as Error)
    }
    return this.run(parameters, map)
  }

  /** `map` of the rows of one run with `parameters` already bound (in the statement's order), as `executeMapped`. */
  run<T = O[]>(parameters: unknown[], map: ((rows: O[]) => T) | undefined): MaybePromise<T> {
    const driver = this.driver
    if (driver !== undefined && driver.available()) return driver.rows(this.sql, parameters, map as ((rows: Record<string, unknown>[]) => T) | undefined)
    let rows: Promise<QueryResult<O>>
    try {
      rows = this.db.executeQuery<O>({ ...this.compiled, parameters })
    } catch (error) {
      return Promise.reject(error as Error)
    }
    return map === undefined ? (rows.then((result) => result.rows) as Promise<T>) : rows.then((result) => map(result.rows))
  }
}

/** Binds the placeholders of a compiled query built per run (e.g. a cursor seek) and runs it like `CompiledStatement`. */
export function executeCompiled<O>(db: Pick<Kysely<unknown>, 'executeQuery'>, compiled: CompiledQuery<O>, values: Readonly<Record<string, unknown>>): Promise<O[]> {
  return new CompiledStatement(db, compiled).execute(values)
}

/** `compiled` with its placeholders replaced by `values` (for `EXPLAIN`, logs and tests). */
export function bindCompiled<O>(compiled: CompiledQuery<O>, values: Readonly<Record<string, unknown>>): CompiledQuery<O> {
  const statement = new CompiledStatement<O>({ executeQuery: () => Promise.reject(new Error('not run')) }, compiled)
  return { ...compiled, parameters: statement.parameters(values) }
}

function firstRow<O>(rows: readonly O[]): O | undefined {
  return rows[0]
}

/** A Kysely query compiled once, run with new parameter values. */
export interface PreparedQuery<P, O> {
  /** The SQL text. */
  readonly sql: string
  /** Every row of one run. */
  execute(values: P): Promise<O[]>
  /** The first row of one run, or `undefined`. */
  executeTakeFirst(values: P): Promise<O | undefined>
}

/**
 * Builds and compiles a Kysely query once; each run only binds the values and runs the
 * statement on the driver (a better-sqlite3 statement prepared once, a PostgreSQL named
 * statement), with no per-run query building or compiling. You still write Kysely, with
 * its types: `build` receives one placeholder per parameter.
 *
 * @example
 * const byUsername = prepareQuery<{ username: string }, { id: number }>(db, (p) =>
 *   db.selectFrom('gatehouse_users').select('id').where('username', '=', p.username))
 * const row = await byUsername.executeTakeFirst({ username: 'bob' })
 */
export function prepareQuery<P extends object, O>(db: Pick<Kysely<unknown>, 'executeQuery'>, build: (params: QueryParameters<P>) => Compilable<O>): PreparedQuery<P, O> {
  const refs = new Proxy({} as QueryParameters<P>, { get: (_target, name) => (typeof name === 'string' ? parameterRef(name) : undefined) })
  const statement = new CompiledStatement<O>(db, build(refs).compile())
  return {
    sql: statement.sql,
    execute: (values) => statement.execute(values as Readonly<Record<string, unknown>>),
    executeTakeFirst: (values) => {
      const row = statement.executeMapped(values as Readonly<Record<string, unknown>>, firstRow)
      return promiseOf(row)
    },
  }
}
