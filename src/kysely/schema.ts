import type { ColumnType, Generated } from 'kysely'
import type { UserId } from '../core/user.js'

/** Timestamps: `timestamptz` on PostgreSQL (read as `Date`), ISO-8601 text on SQLite. */
export type Timestamp = ColumnType<Date | string, Date | string, Date | string>

/** gatehouse's own users table (`gatehouse_users`). Bring your own with `KyselyUserStore`'s `table` option. */
export interface UsersTable {
  id: Generated<number>
  username: string
  /** `scrypt$…` or Django's `pbkdf2_sha256$…`; `!` for an unusable password. */
  password: string
  /** 0 or 1 (integers keep SQLite and PostgreSQL identical). */
  is_active: number
  is_staff: number
  /** Django's `is_superuser` (migration `0004_users_is_superuser`): may act on staff accounts in the admin pages. */
  is_superuser: ColumnType<number, number | undefined, number>
  date_joined: Timestamp
  /** Django's `last_login`: set by `updateLastLogin` (migration `0003_users_last_login`), `null` until then. */
  last_login: ColumnType<Date | string | null, Date | string | null | undefined, Date | string | null>
}

/**
 * `gatehouse_tokens`. `Id` is the type of your users' ids: `number` for gatehouse's own
 * users table, `string` when yours is keyed by UUID.
 */
export interface TokensTable<Id extends UserId = number> {
  key: string
  /** Hex SHA-256 of `key`: the lookup column. */
  key_digest: string
  user_id: Id
  created: Timestamp
}

/**
 * `gatehouse_named_tokens`, the safer token mode (`KyselyNamedTokenStore`): many named
 * tokens per user, each stored only as a digest. `Id` as in `TokensTable`.
 */
export interface NamedTokensTable<Id extends UserId = number> {
  id: Generated<number>
  user_id: Id
  name: string
  /** The token's first characters, for telling tokens apart in a listing (never enough to use). */
  display_prefix: string
  /** Hex SHA-256 of the whole token: the only form the token is kept in. */
  digest: string
  created: Timestamp
  expires_at: Timestamp | null
  last_used_at: Timestamp | null
}

/** `gatehouse_sessions`; `Id` as in `TokensTable`. */
export interface SessionsTable<Id extends UserId = number> {
  session_key: string
  user_id: Id | null
  /** JSON text. */
  data: string
  expires_at: Timestamp
}

/** What `KyselyUserStore` needs of a database when it uses gatehouse's own users table. */
export interface UsersDatabase {
  gatehouse_users: UsersTable
}

/** What `KyselyTokenStore` needs of a database: the tokens table, with integer or string user ids. */
export interface TokensDatabase<Id extends UserId = UserId> {
  gatehouse_tokens: TokensTable<Id>
}

/** What `KyselyNamedTokenStore` needs of a database: the named tokens table, with integer or string user ids. */
export interface NamedTokensDatabase<Id extends UserId = UserId> {
  gatehouse_named_tokens: NamedTokensTable<Id>
}

/** What `KyselySessionStore` needs of a database: the sessions table, with integer or string user ids. */
export interface SessionsDatabase<Id extends UserId = UserId> {
  gatehouse_sessions: SessionsTable<Id>
}

/**
 * The tables gatehouse's Kysely stores use. Apps extend it with their own tables:
 * `interface MyDb extends AuthDatabase { books: BooksTable }`, then `Kysely<MyDb>`
 * goes to every store as it is.
 */
export interface AuthDatabase {
  gatehouse_users: UsersTable
  gatehouse_tokens: TokensTable
  gatehouse_sessions: SessionsTable
  gatehouse_named_tokens: NamedTokensTable
}

/**
 * The tables gatehouse keeps when the app brings its own users table (see
 * `authMigrations`' `users` option): tokens and sessions whose `user_id` has the type
 * of your ids (`string` for UUIDs).
 */
export interface TokenSessionDatabase<Id extends UserId = string> {
  gatehouse_tokens: TokensTable<Id>
  gatehouse_sessions: SessionsTable<Id>
  gatehouse_named_tokens: NamedTokensTable<Id>
}

/** A stored flag as a boolean: 0/1, a boolean, or PostgreSQL's `'t'`/`'f'` and `'true'`/`'false'` as text. */
export function toFlag(value: unknown): boolean {
  return value === true || value === 't' || value === 'true' || Number(value) === 1
}

/** Converts a stored timestamp (Date on PostgreSQL, text on SQLite) to a `Date`. */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value)
}

/**
 * A user id as read from a row: integers stay numbers (PostgreSQL's `bigint` arrives as one too,
 * see `openDatabase`), UUIDs and other keys stay strings.
 */
export function toUserId(value: unknown): UserId {
  if (typeof value === 'number' || typeof value === 'string') return value
  if (typeof value === 'bigint') return Number(value)
  throw new TypeError(`unexpected user id type ${typeof value}`)
}
