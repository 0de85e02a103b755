import type { Kysely } from 'kysely'
import type { StoredUser } from '../core/user.js'
import { prepareQuery, type PreparedQuery } from './prepared-query.js'
import { rowToUser, userSelection, type UserTable } from './user-table.js'

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

/** The token row and its user, or `undefined` when there is no such row or its user is gone. */
export type TokenWithUserLookup = (digest: string) => Promise<{ readonly row: Readonly<Record<string, unknown>>; readonly user: StoredUser } | undefined>

/**
 * The token row of a digest and its user, read in one statement (a join on `user_id`),
 * compiled once on first use and then only bound and run on the driver (`prepareQuery`).
 * The users table is named at run time (your own, mapped), hence the loose typing inside.
 */
export function prepareTokenWithUser<DB>(db: Kysely<DB>, users: UserTable, query: TokenRowQuery): TokenWithUserLookup {
  const { table } = query
  const loose = db as unknown as Kysely<LooseDatabase>
  let prepared: PreparedQuery<{ digest: string }, Readonly<Record<string, unknown>>> | undefined
  return async (digest) => {
    prepared ??= prepareQuery<{ digest: string }, Readonly<Record<string, unknown>>>(loose, (p) =>
      loose
        .selectFrom(table)
        .innerJoin(`${users.table} as ${USER_ALIAS}`, `${USER_ALIAS}.${users.columns.id}`, `${table}.user_id`)
        .select([...query.columns.map((column) => `${table}.${column}`), ...userSelection(users, USER_ALIAS, USER_PREFIX)])
        .where(`${table}.${query.digestColumn}`, '=', p.digest),
    )
    const row = await prepared.executeTakeFirst({ digest })
    return row === undefined ? undefined : { row, user: rowToUser(users, row, USER_PREFIX) }
  }
}
