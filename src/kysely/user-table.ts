import { sql, type AliasedRawBuilder } from 'kysely'
import { ConfigurationError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import { toFlag, toUserId, type UsersTable } from './schema.js'

/**
 * Which column of your users table holds each field gatehouse reads. `C` is the table's
 * column names, so a misspelt column is a type error.
 */
export interface UserColumns<C extends string = string> {
  /** The primary key. */
  readonly id: C
  /** The unique login name (an email address works). Matched exactly, case-sensitively. */
  readonly username: C
  /** The password hash gatehouse writes and reads (`scrypt$…`, Django's `pbkdf2_sha256$…`, or `!`). */
  readonly password: C
  /** 0/1 or boolean; `null` or absent: every user is active. */
  readonly isActive?: C | null
  /** 0/1 or boolean; `null` or absent: no user is staff. */
  readonly isStaff?: C | null
  /** Django's `is_superuser`, 0/1 or boolean: may act on staff accounts in the admin pages; `null` or absent: no user is. */
  readonly isSuperuser?: C | null
  /** Set to the current time by `create` (ISO text on SQLite, `timestamptz` on PostgreSQL); absent: left to the table. */
  readonly dateJoined?: C | null
  /** Django's `last_login`, written by `updateLastLogin` (a timestamp, or ISO text on SQLite); absent: not kept. */
  readonly lastLogin?: C | null
}

/**
 * How the ids of your users table are made: `'integer'` and `'bigint'`, by the database
 * (`serial`, `bigserial`, `identity`, SQLite's `integer primary key`); `'uuid'`, by the store
 * (`crypto.randomUUID()`) when it creates a user, into a `uuid` column on PostgreSQL or a
 * `text` one on SQLite.
 */
export type UserIdType = 'integer' | 'bigint' | 'uuid'

/**
 * The layout of a users table, as plain data: its name, which column holds each field, and
 * how its ids are made. One value describes the table to every part of gatehouse that
 * reads it: `KyselyUserStore` (`userTable`), the token stores' joined lookup (`joinUsers`)
 * and `authMigrations` (`users`). `TB` and `C` are the table's name and column names.
 *
 * @example
 * const accounts: UserTableOf<AppDb> = {
 *   table: 'accounts',
 *   columns: { id: 'account_id', username: 'email', password: 'pw_hash', isActive: 'enabled' },
 *   idType: 'uuid',
 * }
 */
export interface UserTable<TB extends string = string, C extends string = string> {
  /** The table (may be schema-qualified on PostgreSQL: `'app.accounts'`). */
  readonly table: TB
  readonly columns: UserColumns<C>
  readonly idType: UserIdType
}

/** A `UserTable` of database `DB`: one of its tables, and only that table's columns (a typo does not compile). */
export type UserTableOf<DB> = { [TB in keyof DB & string]: UserTable<TB, keyof DB[TB] & string> }[keyof DB & string]

/** The columns of Django's `auth_user` that gatehouse reads, under Django's names. */
export const DJANGO_USER_COLUMNS: Required<UserColumns<keyof UsersTable & string>> = Object.freeze({
  id: 'id',
  username: 'username',
  password: 'password',
  isActive: 'is_active',
  isStaff: 'is_staff',
  isSuperuser: 'is_superuser',
  dateJoined: 'date_joined',
  lastLogin: 'last_login',
})

/**
 * gatehouse's own users table, the default: `gatehouse_users`, laid out as Django's
 * `auth_user` (`DJANGO_USER_COLUMNS`), with integer ids made by the database.
 */
export const DEFAULT_USER_TABLE: UserTable<'gatehouse_users', keyof UsersTable & string> = Object.freeze({
  table: 'gatehouse_users',
  columns: DJANGO_USER_COLUMNS,
  idType: 'integer',
})

const ID_TYPES: readonly string[] = ['integer', 'bigint', 'uuid']

/**
 * `layout` itself when it names a table, the three required columns and a known id type;
 * checked at run time because layouts also come from untyped configuration.
 * @throws ConfigurationError naming `option` (e.g. `KyselyUserStore option "userTable"`).
 */
export function checkUserTable(layout: UserTable, option: string): UserTable {
  if (typeof layout !== 'object' || layout === null || typeof layout.table !== 'string' || layout.table === '') {
    throw new ConfigurationError('ERR_INVALID_SETTING', `${option} must be a UserTable naming a table`)
  }
  const columns: Partial<UserColumns> | undefined = layout.columns
  for (const field of ['id', 'username', 'password'] as const) {
    if (typeof columns?.[field] !== 'string' || columns[field] === '') {
      throw new ConfigurationError('ERR_INVALID_SETTING', `${option} "columns.${field}" must name a column`)
    }
  }
  if (!ID_TYPES.includes(layout.idType)) {
    throw new ConfigurationError('ERR_INVALID_SETTING', `${option} "idType" must be "integer", "bigint" or "uuid"`)
  }
  return layout
}

/** A row selected by `userSelection()`: the mapped columns under gatehouse's names. */
export type UserRow = Readonly<Record<string, unknown>>

/**
 * The selection of a user's public fields, aliased to fixed names whatever the layout
 * (`prefix` + `id`, `username`, …), from `alias` when given (a joined table's alias).
 */
export function userSelection(layout: UserTable, alias?: string, prefix = ''): AliasedRawBuilder<unknown, string>[] {
  const c = layout.columns
  const ref = (column: string): ReturnType<typeof sql.ref<unknown>> => sql.ref<unknown>(alias === undefined ? column : `${alias}.${column}`)
  const fields: AliasedRawBuilder<unknown, string>[] = [ref(c.id).as(`${prefix}id`), ref(c.username).as(`${prefix}username`)]
  if (typeof c.isActive === 'string') fields.push(ref(c.isActive).as(`${prefix}is_active`))
  if (typeof c.isStaff === 'string') fields.push(ref(c.isStaff).as(`${prefix}is_staff`))
  if (typeof c.isSuperuser === 'string') fields.push(ref(c.isSuperuser).as(`${prefix}is_superuser`))
  return fields
}

/** The user in a row selected by `userSelection(layout, alias, prefix)`. */
export function rowToUser(layout: UserTable, row: UserRow, prefix = ''): StoredUser {
  return userMapper(layout, prefix)(row)
}

/**
 * `rowToUser` for one layout and prefix, its field names worked out once: for a lookup that
 * maps a row on every request.
 */
export function userMapper(layout: UserTable, prefix = ''): (row: UserRow) => StoredUser {
  const c = layout.columns
  const id = `${prefix}id`
  const username = `${prefix}username`
  const isActive = typeof c.isActive === 'string' ? `${prefix}is_active` : null
  const isStaff = typeof c.isStaff === 'string' ? `${prefix}is_staff` : null
  const isSuperuser = typeof c.isSuperuser === 'string' ? `${prefix}is_superuser` : null
  // Only where the table keeps it: a layout without the column answers the user as before.
  if (isSuperuser === null) {
    return (row) =>
      Object.freeze({
        id: toUserId(row[id]),
        username: String(row[username]),
        isActive: isActive === null ? true : toFlag(row[isActive]),
        isStaff: isStaff === null ? false : toFlag(row[isStaff]),
        isAuthenticated: true as const,
      })
  }
  return (row) =>
    Object.freeze({
      id: toUserId(row[id]),
      username: String(row[username]),
      isActive: isActive === null ? true : toFlag(row[isActive]),
      isStaff: isStaff === null ? false : toFlag(row[isStaff]),
      isAuthenticated: true as const,
      isSuperuser: toFlag(row[isSuperuser]),
    })
}
