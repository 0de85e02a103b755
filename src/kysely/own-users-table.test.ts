/**
 * An app that brings its own users table (Django's AUTH_USER_MODEL): UUID ids, other
 * column names, boolean flags, extra columns; gatehouse keeps only tokens and sessions.
 */
import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { TokenAuthentication } from '../authentication/token-authentication.js'
import { AuthenticationFailed, ConfigurationError } from '../core/errors.js'
import { runSessionStoreSuite, runTokenStoreSuite, runUserStoreSuite } from '../testing/index.js'
import { openDatabase, type Database, type DialectName } from './database.js'
import { KyselyNamedTokenStore } from './kysely-named-token-store.js'
import { KyselySessionStore } from './kysely-session-store.js'
import { KyselyTokenStore } from './kysely-token-store.js'
import { KyselyUserStore, type KyselyUserStoreOptions, type RequiredUserTable } from './kysely-user-store.js'
import { authMigrations, migrate } from './migrations.js'
import type { Timestamp, TokenSessionDatabase } from './schema.js'
import type { UserTable, UserTableOf } from './user-table.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

interface AccountsTable {
  account_id: string
  email: string
  pw_hash: string
  enabled: boolean | number
  admin: boolean | number
  display_name: string | null
  plan: string
  joined: Timestamp | null
}

interface MembersTable {
  member_no: number
  handle: string
  secret: string
}

interface AppDatabase extends TokenSessionDatabase<string> {
  accounts: AccountsTable
}

/** The app's own table, made by the app's migrations before gatehouse's run. */
async function createAccounts(db: Kysely<AppDatabase>, dialect: DialectName): Promise<void> {
  const pg = dialect === 'postgres'
  await db.schema
    .createTable('accounts')
    .addColumn('account_id', pg ? 'uuid' : 'text', (c) => c.primaryKey())
    .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
    .addColumn('pw_hash', 'text', (c) => c.notNull())
    .addColumn('enabled', pg ? 'boolean' : 'integer', (c) => c.notNull().defaultTo(pg ? sql`true` : 1))
    .addColumn('admin', pg ? 'boolean' : 'integer', (c) => c.notNull().defaultTo(pg ? sql`false` : 0))
    .addColumn('display_name', 'text')
    .addColumn('plan', 'text', (c) => c.notNull().defaultTo('free'))
    .addColumn('joined', pg ? 'timestamptz' : 'text')
    .execute()
}

/** One plain value describes the table to the migrations, the user store and the token stores. */
const ACCOUNTS: UserTableOf<AppDatabase> = {
  table: 'accounts',
  columns: { id: 'account_id', username: 'email', password: 'pw_hash', isActive: 'enabled', isStaff: 'admin', dateJoined: 'joined' },
  idType: 'uuid',
}

const MEMBERS = {
  table: 'members',
  columns: { id: 'member_no', username: 'handle', password: 'secret' },
  idType: 'bigint',
} as const satisfies UserTable

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`your own users table (UUID ids) on ${backend.name}`, () => {
    let target: TestDatabase
    let database: Database<AppDatabase>
    let db: Kysely<AppDatabase>
    let users: KyselyUserStore<AppDatabase>

    beforeAll(async () => {
      target = await backend.create()
      database = await openDatabase<AppDatabase>(target.url)
      db = database.db
      await createAccounts(db, database.dialect)
      await migrate(db, authMigrations(database.dialect, { users: ACCOUNTS }))
      users = new KyselyUserStore({ db, userTable: ACCOUNTS, scrypt: { N: 1024, r: 8, p: 1 } })
    })
    afterAll(async () => {
      await database?.close()
      await target?.drop()
    })

    let made = 0
    const createUser = async (): Promise<string> => {
      const user = await users.create({ username: `suite-${++made}@example.com`, password: null })
      return String(user.id)
    }
    runUserStoreSuite({ describe, it, create: () => users })
    runTokenStoreSuite({ describe, it, create: () => new KyselyTokenStore({ db }), createUser })
    runTokenStoreSuite({ describe, it, name: 'TokenStore contract, joined with the accounts table', create: () => new KyselyTokenStore({ db, joinUsers: users.userTable }), createUser })
    runSessionStoreSuite({ describe, it, create: (now) => new KyselySessionStore({ db, now }), createUser })

    it('creates only tokens and sessions, with user_id of the UUID type, and no gatehouse_users', async () => {
      const tables = await db.introspection.getTables()
      const names = tables.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(['accounts', 'gatehouse_tokens', 'gatehouse_sessions']))
      expect(names).not.toContain('gatehouse_users')
      const type = (table: string): string | undefined =>
        tables.find((t) => t.name === table)?.columns.find((c) => c.name === 'user_id')?.dataType.toLowerCase()
      expect(type('gatehouse_tokens')).toBe(database.dialect === 'postgres' ? 'uuid' : 'text')
      expect(type('gatehouse_sessions')).toBe(database.dialect === 'postgres' ? 'uuid' : 'text')
    })

    it('create writes a UUID id, the mapped columns and the join time; the table fills its other columns', async () => {
      const user = await users.create({ username: 'new@example.com', password: 'pw-new-1', isStaff: true })
      expect(typeof user.id).toBe('string')
      expect(user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(user).toMatchObject({ username: 'new@example.com', isActive: true, isStaff: true })
      const row = await db.selectFrom('accounts').selectAll().where('account_id', '=', String(user.id)).executeTakeFirstOrThrow()
      expect(row.pw_hash).toMatch(/^scrypt\$1024\$/)
      expect(row.plan).toBe('free')
      expect(row.display_name).toBeNull()
      expect(row.joined).not.toBeNull()
    })

    it('reads rows the app wrote itself (booleans, extra columns) and ignores the extra columns', async () => {
      const hash = (await users.create({ username: 'template@example.com', password: 'app-pass-1' })).id
      const template = await db.selectFrom('accounts').select('pw_hash').where('account_id', '=', String(hash)).executeTakeFirstOrThrow()
      const pg = database.dialect === 'postgres'
      const id = randomUUID()
      await db
        .insertInto('accounts')
        .values({ account_id: id, email: 'app-made@example.com', pw_hash: template.pw_hash, enabled: pg ? false : 0, admin: pg ? true : 1, display_name: 'App Made', plan: 'pro', joined: null })
        .execute()
      const found = await users.findById(id)
      expect(found).toEqual({ id, username: 'app-made@example.com', isActive: false, isStaff: true, isAuthenticated: true })
      expect(Object.keys(found ?? {}).sort()).toEqual(['id', 'isActive', 'isAuthenticated', 'isStaff', 'username'])
      // Inactive (enabled = false): the right password still does not authenticate.
      expect(await users.authenticate('app-made@example.com', 'app-pass-1')).toBeNull()
      await db.updateTable('accounts').set({ enabled: pg ? true : 1 }).where('account_id', '=', id).execute()
      expect((await users.authenticate('app-made@example.com', 'app-pass-1'))?.id).toBe(id)
    })

    it('findWithUser reads the mapped columns of the account in the same statement; setActive writes the mapped flag', async () => {
      const tokens = new KyselyTokenStore({ db, joinUsers: users.userTable })
      const user = await users.create({ username: 'joined@example.com', password: null, isStaff: true })
      const { key } = await tokens.getOrCreate(user.id)
      expect(await tokens.findWithUser?.(key)).toEqual({
        token: { key, userId: user.id, created: expect.any(Date) },
        user: { id: user.id, username: 'joined@example.com', isActive: true, isStaff: true, isAuthenticated: true },
      })
      expect(await users.setActive(user.id, false)).toBe(true)
      const row = await db.selectFrom('accounts').select('enabled').where('account_id', '=', String(user.id)).executeTakeFirstOrThrow()
      expect(row.enabled === false || row.enabled === 0).toBe(true)
      expect((await tokens.findWithUser?.(key))?.user.isActive).toBe(false)
      const scheme = new TokenAuthentication({ tokens, users })
      const refused = await Promise.resolve().then(() => scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } }))).catch((e: unknown) => e)
      expect((refused as AuthenticationFailed).detail).toBe('User inactive or deleted.')
      expect(await users.setActive(user.id, true)).toBe(true)
      expect((await scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } })))?.user.id).toBe(user.id)
    })

    it('ids that cannot be UUIDs are "not found", never a driver error', async () => {
      for (const id of [1, 0, -1, 'not-a-uuid', '', `${randomUUID()}x`, "' or 1=1 --", 'a\0b']) {
        expect(await users.findById(id)).toBeNull()
        expect(await users.setPassword(id, 'x')).toBe(false)
        expect(await users.setActive(id, false)).toBe(false)
      }
    })

    it('setPassword changes the password of the mapped row', async () => {
      const user = await users.create({ username: 'changer@example.com', password: 'old-pass-1' })
      expect(await users.setPassword(user.id, 'new-pass-2')).toBe(true)
      expect(await users.authenticate('changer@example.com', 'old-pass-1')).toBeNull()
      expect((await users.authenticate('changer@example.com', 'new-pass-2'))?.id).toBe(user.id)
    })

    it("deleting an account deletes its token and sessions (the foreign key points at the app's table)", async () => {
      const user = await users.create({ username: 'leaver@example.com', password: null })
      const tokens = new KyselyTokenStore({ db })
      const sessions = new KyselySessionStore({ db })
      const { key } = await tokens.getOrCreate(user.id)
      await sessions.save('leaver-session', { userId: user.id, data: {}, expiresAt: new Date(Date.now() + 60_000) })
      expect((await tokens.findByKey(key))?.userId).toBe(user.id)
      await db.deleteFrom('accounts').where('account_id', '=', String(user.id)).execute()
      expect(await tokens.findByKey(key)).toBeNull()
      expect(await sessions.get('leaver-session')).toBeNull()
    })

    it('a token for an id the table does not have is refused by the foreign key', async () => {
      await expect(new KyselyTokenStore({ db }).getOrCreate(randomUUID())).rejects.toThrow()
    })

    it('named tokens (safer mode) keep UUID ids: create, join with the account, list, revoke; deleting the account deletes them', async () => {
      const named = new KyselyNamedTokenStore({ db, joinUsers: users.userTable })
      const user = await users.create({ username: 'named@example.com', password: null })
      const { key, info } = await named.create(user.id, { name: 'phone' })
      const found = await named.findWithUser?.(key)
      expect(found?.user).toMatchObject({ id: user.id, username: 'named@example.com' })
      expect(found?.token).toMatchObject({ userId: user.id, id: info.id, name: 'phone' })
      const scheme = new TokenAuthentication({ tokens: named, users })
      expect((await scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } })))?.user.id).toBe(user.id)
      expect((await named.list(user.id)).map((t) => t.userId)).toEqual([user.id])
      await named.create(user.id, { name: 'spare' })
      expect(await named.revoke(user.id, info.id)).toBe(true)
      await db.deleteFrom('accounts').where('account_id', '=', String(user.id)).execute()
      expect(await named.list(user.id)).toEqual([])
      await expect(named.create(randomUUID(), { name: 'nobody' })).rejects.toThrow()
    })
  })

  describe.skipIf(backendUnavailable(backend))(`your own users table (integer ids, no flag columns, no foreign key) on ${backend.name}`, () => {
    interface MembersDatabase extends TokenSessionDatabase<number> {
      members: MembersTable
    }
    let target: TestDatabase
    let database: Database<MembersDatabase>

    beforeAll(async () => {
      target = await backend.create()
      database = await openDatabase<MembersDatabase>(target.url)
      const pg = database.dialect === 'postgres'
      // gatehouse's migrations first: without a foreign key the app's table may come later.
      await migrate(database.db, authMigrations(database.dialect, { users: MEMBERS, foreignKey: false }))
      await database.db.schema
        .createTable('members')
        .addColumn('member_no', pg ? 'bigserial' : 'integer', (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('handle', 'text', (c) => c.notNull().unique())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('nickname', 'text')
        .execute()
    })
    afterAll(async () => {
      await database?.close()
      await target?.drop()
    })

    it('users are active and not staff; ids are numbers; tokens and sessions keep them', async () => {
      const db = database.db
      const users = new KyselyUserStore({ db, userTable: MEMBERS, scrypt: { N: 1024, r: 8, p: 1 } })
      const user = await users.create({ username: 'mia', password: 'mia-pass-1', isStaff: true, isActive: false })
      // No flag columns: every user is active and none is staff, whatever create was asked.
      expect(user).toMatchObject({ username: 'mia', isActive: true, isStaff: false })
      expect(typeof user.id).toBe('number')
      expect((await users.authenticate('mia', 'mia-pass-1'))?.id).toBe(user.id)
      expect(await users.findById(String(user.id))).toBeNull()
      const tokens = new KyselyTokenStore({ db })
      const token = await tokens.getOrCreate(user.id)
      expect((await tokens.findByKey(token.key))?.userId).toBe(user.id)
      const sessions = new KyselySessionStore({ db })
      await sessions.save('m1', { userId: user.id, data: {}, expiresAt: new Date(Date.now() + 60_000) })
      expect((await sessions.get('m1'))?.userId).toBe(user.id)
      // No foreign key: a token for a member not (yet) in the table is accepted.
      expect((await tokens.getOrCreate(9_999_999)).userId).toBe(9_999_999)
      const named = new KyselyNamedTokenStore({ db })
      const created = await named.create(user.id, { name: 'bigint' })
      expect(await named.findByKey(created.key)).toMatchObject({ userId: user.id, name: 'bigint' })
      expect((await named.create(9_999_999, { name: 'orphan' })).info.userId).toBe(9_999_999)
    })

    it('a token whose member is not in the table: findWithUser is null, and the scheme answers "Invalid token."', async () => {
      const db = database.db
      const users = new KyselyUserStore({ db, userTable: MEMBERS })
      const tokens = new KyselyTokenStore({ db, joinUsers: MEMBERS })
      const orphan = await tokens.getOrCreate(8_888_888)
      expect(await tokens.findByKey(orphan.key)).not.toBeNull()
      expect(await tokens.findWithUser?.(orphan.key)).toBeNull()
      const member = await users.create({ username: 'nia', password: null })
      const own = await tokens.getOrCreate(member.id)
      expect((await tokens.findWithUser?.(own.key))?.user).toEqual({ id: member.id, username: 'nia', isActive: true, isStaff: false, isAuthenticated: true })
      for (const scheme of [new TokenAuthentication({ tokens, users }), new TokenAuthentication({ tokens: new KyselyTokenStore({ db }), users })]) {
        const error = await Promise.resolve().then(() => scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${orphan.key}` } }))).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(AuthenticationFailed)
        expect((error as AuthenticationFailed).detail).toBe('Invalid token.')
      }
      // No isActive column: every member is active, and there is no flag to clear.
      await expect(users.setActive(member.id, false)).rejects.toThrow(ConfigurationError)
      await expect(users.setStaff(member.id, true)).rejects.toThrow(/needs an "isStaff" column/)
    })
  })
}

describe('configuration errors', () => {
  it('a mapping without id, username or password, or with an unknown idType, throws ConfigurationError', () => {
    const db = {} as Kysely<{ accounts: AccountsTable }>
    const bad = [
      { db, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'email' }, idType: 'uuid' } },
      { db, userTable: { table: 'accounts', columns: { id: '', username: 'email', password: 'pw_hash' }, idType: 'uuid' } },
      { db, userTable: { table: 'accounts', columns: { id: 'account_id', username: 'email', password: 'pw_hash' }, idType: 'ulid' } },
      { db, userTable: { table: '', columns: { id: 'account_id', username: 'email', password: 'pw_hash' }, idType: 'uuid' } },
      { db, userTable: { table: 'accounts', idType: 'uuid' } },
    ] as unknown as (KyselyUserStoreOptions<{ accounts: AccountsTable }> & RequiredUserTable<{ accounts: AccountsTable }>)[]
    for (const options of bad) expect(() => new KyselyUserStore(options)).toThrow(ConfigurationError)
  })

  it('authMigrations refuses a malformed users option', () => {
    expect(() => authMigrations('sqlite', { users: { ...ACCOUNTS, table: '' } })).toThrow(ConfigurationError)
    expect(() => authMigrations('sqlite', { users: { ...ACCOUNTS, idType: 'ulid' as 'uuid' } })).toThrow(/idType/)
    expect(() => authMigrations('sqlite', { users: { ...ACCOUNTS, columns: { ...ACCOUNTS.columns, id: '' } } })).toThrow(/columns\.id/)
  })
})
