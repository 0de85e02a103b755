import type { Kysely } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import { prepareQuery, type PreparedQuery } from './prepared-query.js'
import { userJoin, type KyselyUserStore, type UserJoin } from './kysely-user-store.js'

/** A token store's view of the database for the join: the users table is only known at run time. */
type LooseDatabase = Record<string, Record<string, unknown>>

/** Alias of the joined users table, and the prefix of its fields in the joined row. */
const USER_ALIAS = 'gatehouse_token_user'
const USER_PREFIX = 'u_'

/**
 * The join a token store's `users` option describes, for its `findWithUser`; `undefined` when
 * the option is absent.
 * @throws ConfigurationError when `users` is not a `KyselyUserStore` (the join reads its table and columns).
 */
export function tokenUserJoin(users: KyselyUserStore<unknown> | undefined, storeName: string): UserJoin | undefined {
  if (users === undefined) return undefined
  const join = userJoin(users)
  if (join === undefined) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `${storeName} option "users" must be a KyselyUserStore (the join reads its table and columns)`)
  }
  return join
}

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
export function prepareTokenWithUser<DB>(db: Kysely<DB>, join: UserJoin, query: TokenRowQuery): TokenWithUserLookup {
  const { table } = query
  const loose = db as unknown as Kysely<LooseDatabase>
  let prepared: PreparedQuery<{ digest: string }, Readonly<Record<string, unknown>>> | undefined
  return async (digest) => {
    prepared ??= prepareQuery<{ digest: string }, Readonly<Record<string, unknown>>>(loose, (p) =>
      loose
        .selectFrom(table)
        .innerJoin(`${join.table} as ${USER_ALIAS}`, `${USER_ALIAS}.${join.idColumn}`, `${table}.user_id`)
        .select([...query.columns.map((column) => `${table}.${column}`), ...join.selection(USER_ALIAS, USER_PREFIX)])
        .where(`${table}.${query.digestColumn}`, '=', p.digest),
    )
    const row = await prepared.executeTakeFirst({ digest })
    return row === undefined ? undefined : { row, user: join.toUser(row, USER_PREFIX) }
  }
}
