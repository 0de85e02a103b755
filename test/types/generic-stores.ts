/**
 * Type test, checked by `npm run typecheck` (and by test/types/generic-stores.test.ts with
 * TypeScript 7 when it is installed): every store, source and helper takes a `Kysely<MyDb>`
 * whose `MyDb` holds gatehouse's tables among the app's own, with no cast at the call site.
 * Lines marked `@ts-expect-error` must fail to compile, so a constraint that stops
 * checking anything fails this file too.
 */
import type { Generated, Kysely } from 'kysely'
import type { StoredUser, UserId } from 'drf-gatehouse'
import { LocalInvalidationBus, MemoryTokenCache, TokenAuthentication, chainTokenStores } from 'drf-gatehouse'
import {
  KyselyNamedTokenStore,
  KyselyPageSource,
  KyselySessionStore,
  KyselyTokenStore,
  KyselyUserStore,
  authMigrations,
  migrate,
  openDatabase,
  syncSerial,
  type AuthDatabase,
  type Database,
  type TokenSessionDatabase,
  type UserTableOf,
} from 'drf-gatehouse/kysely'

interface BooksTable {
  id: Generated<number>
  title: string
}

/** An app's database as an intersection... */
type IntersectionDb = AuthDatabase & { books: BooksTable }
/** ...and as an interface that extends gatehouse's. */
interface ExtendedDb extends AuthDatabase {
  books: BooksTable
}

/** An app with its own users table keyed by UUID, and gatehouse's tokens and sessions. */
interface AccountsTable {
  account_id: string
  email: string
  pw_hash: string
  enabled: boolean
  admin: boolean
  display_name: string | null
}
interface OwnUsersDb extends TokenSessionDatabase<string> {
  accounts: AccountsTable
  books: BooksTable
}

export async function intersection(database: Database<IntersectionDb>): Promise<StoredUser | null> {
  const db: Kysely<IntersectionDb> = database.db
  await migrate(db, authMigrations(database.dialect))
  await syncSerial(db, database.dialect, 'books')
  const users = new KyselyUserStore({ db })
  const tokens = new KyselyTokenStore({ db })
  const sessions = new KyselySessionStore({ db })
  const source = new KyselyPageSource({
    db,
    query: db.selectFrom('books').select(['id', 'title']),
    dialect: database.dialect,
    columns: { id: { ref: 'books.id', kind: 'integer' } },
    orderBy: ['id'],
  })
  await tokens.getOrCreate(1)
  await sessions.get('k')
  void source
  return users.findById(1)
}

export async function extended(): Promise<void> {
  const database = await openDatabase<ExtendedDb>('sqlite::memory:')
  const db = database.db
  await migrate(db, authMigrations(database.dialect))
  const users = new KyselyUserStore({ db, scrypt: { N: 1024, r: 8, p: 1 } })
  const tokens = new KyselyTokenStore({ db, generateKey: () => 'k' })
  const sessions = new KyselySessionStore({ db, now: Date.now })
  const named = new KyselyNamedTokenStore({ db, prefix: 'app_' })
  const namedPlain: KyselyNamedTokenStore = named
  void namedPlain
  // Stores of different databases are interchangeable where the plain store type is expected.
  const plain: { users: KyselyUserStore; tokens: KyselyTokenStore; sessions: KyselySessionStore } = { users, tokens, sessions }
  void plain
  await database.close()
}

export async function ownUsersTable(db: Kysely<OwnUsersDb>): Promise<UserId | undefined> {
  const accounts: UserTableOf<OwnUsersDb> = {
    table: 'accounts',
    columns: { id: 'account_id', username: 'email', password: 'pw_hash', isActive: 'enabled', isStaff: 'admin' },
    idType: 'uuid',
  }
  await migrate(db, authMigrations('postgres', { users: accounts }))
  const users = new KyselyUserStore({ db, userTable: accounts })
  // The same layout inline, as a literal: checked against the database type all the same.
  new KyselyUserStore({ db, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'email', password: 'pw_hash' }, idType: 'uuid' } })
  const tokens = new KyselyTokenStore({ db })
  const sessions = new KyselySessionStore({ db })
  const user = await users.authenticate('a@example.com', 'pw')
  if (user !== null) await sessions.save('k', { userId: user.id, data: {}, expiresAt: new Date() })
  // The joined lookup takes the user store's layout as plain data, no cast.
  const joined = new KyselyTokenStore({ db, joinUsers: users.userTable, invalidation: new LocalInvalidationBus() })
  const scheme = new TokenAuthentication({ tokens: joined, users, cache: new MemoryTokenCache({ ttlMs: 1_000, invalidation: new LocalInvalidationBus() }) })
  void scheme
  // Named tokens (safer mode) on the same database, alone and chained after the DRF store.
  const named = new KyselyNamedTokenStore({ db, joinUsers: users.userTable, invalidation: new LocalInvalidationBus() })
  if (user !== null) await named.create(user.id, { name: 'laptop', expiresIn: 3600 })
  const both = new TokenAuthentication({ tokens: chainTokenStores(joined, named), users })
  void both
  return (await joined.findWithUser?.('k'))?.token.userId ?? (await tokens.findByKey('k'))?.userId
}

export function refused(db: Kysely<OwnUsersDb>, books: Kysely<{ books: BooksTable }>): void {
  // @ts-expect-error a misspelt column of the mapped table
  new KyselyUserStore({ db, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'mail', password: 'pw_hash' }, idType: 'uuid' } })
  // @ts-expect-error a column of another table (books.title)
  new KyselyUserStore({ db, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'title', password: 'pw_hash' }, idType: 'uuid' } })
  // @ts-expect-error an id type the store does not know
  new KyselyUserStore({ db, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'email', password: 'pw_hash' }, idType: 'ulid' } })
  // @ts-expect-error a table the database does not have
  new KyselyUserStore({ db, userTable: { table: 'people', columns: { id: 'id', username: 'name', password: 'pw' }, idType: 'integer' } })
  // @ts-expect-error no gatehouse_users, and no table named
  new KyselyUserStore({ db })
  // @ts-expect-error no gatehouse_tokens
  new KyselyTokenStore({ db: books })
  // @ts-expect-error no gatehouse_sessions
  new KyselySessionStore({ db: books })
  // @ts-expect-error no gatehouse_named_tokens
  new KyselyNamedTokenStore({ db: books })
  // @ts-expect-error joinUsers is a UserTable (plain data), not a user store
  new KyselyTokenStore({ db, joinUsers: { findById: async () => null } })
  // @ts-expect-error a UserTable needs its id type
  new KyselyTokenStore({ db, joinUsers: { table: 'accounts', columns: { id: 'account_id', username: 'email', password: 'pw_hash' } } })
}
