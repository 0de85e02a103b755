import type { Kysely } from 'kysely'
import type { MaybePromise } from '../core/maybe-promise.js'
import type { StoredUser } from '../core/user.js'
import { parameterRef, CompiledStatement } from './prepared-query.js'
import { userMapper, userSelection, type UserRow, type UserTable } from './user-table.js'

/** A token store's view of the database for the join: the users table is only known at run time. */
type LooseDatabase = Record<string, Record<string, unknown>>

/** Alias of the joined users table, and the prefix of its fields in the joined row. */
const USER_ALIAS = 'gatehouse_token_user'
const USER_PREFIX = 'u_'

/** Which token row to read: `table`'s row whose `digestColumn` equals the digest, its `columns`. */
export interface TokenRowQuery {
  readonly table: string
  readonly columns: readonly string[]
  readonly digestColumn: string
}

/** The token row of a digest joined with its user (the user's fields prefixed), read in one statement. */
export interface TokenWithUserLookup {
  /**
   * `found(row)` for the token row of `digest` and its user, `found(undefined)` when there is
   * no such row or its user is gone: mapped where the driver hands over the rows, so a lookup
   * makes no promise on SQLite and one on PostgreSQL (`found` may answer a promise, which that
   * one then adopts). A failure is a rejected promise.
   */
  run<T>(digest: string, found: (row: UserRow | undefined) => MaybePromise<T>): MaybePromise<T>
  /** The user of a row `run` found. */
  userOf(row: UserRow): StoredUser
}

/**
 * The token row of a digest and its user, read in one statement (a join on `user_id`),
 * compiled once on first use and then only bound and run on the driver (`prepareQuery`).
 * The users table is named at run time (your own, mapped), hence the loose typing inside.
 */
export function prepareTokenWithUser<DB>(db: Kysely<DB>, users: UserTable, query: TokenRowQuery): TokenWithUserLookup {
  const { table } = query
  const loose = db as unknown as Kysely<LooseDatabase>
  let statement: CompiledStatement<UserRow> | undefined
  const compile = (): CompiledStatement<UserRow> => {
    const compiled = loose
      .selectFrom(table)
      .innerJoin(`${users.table} as ${USER_ALIAS}`, `${USER_ALIAS}.${users.columns.id}`, `${table}.user_id`)
      .select([...query.columns.map((column) => `${table}.${column}`), ...userSelection(users, USER_ALIAS, USER_PREFIX)])
      .where(`${table}.${query.digestColumn}`, '=', parameterRef<string>('digest'))
      .compile()
    // `run` binds the digest as the only parameter: nothing else in the query is a value.
    if (compiled.parameters.length !== 1) throw new Error(`the token lookup compiled to ${compiled.parameters.length} parameters, expected 1`)
    return new CompiledStatement<UserRow>(loose, compiled)
  }
  return {
    run<T>(digest: string, found: (row: UserRow | undefined) => MaybePromise<T>): MaybePromise<T> {
      try {
        statement ??= compile()
      } catch (error) {
        return Promise.reject(error as Error)
      }
      // The statement's one parameter is the digest: bound without a values object.
      // A promise `found` answers is adopted by the driver's (a promise never resolves to a promise).
      return statement.run([digest], (rows) => found(rows[0])) as MaybePromise<T>
    },
    userOf: userMapper(users, USER_PREFIX),
  }
}
