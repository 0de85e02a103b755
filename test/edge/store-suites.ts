/**
 * The exported store conformance suites (drf-gatehouse/testing) over one database opened by an
 * edge entry (`openD1`, `openLibsql`, `openNeon`): gatehouse's migrations first, then the user,
 * token (plain and joined with the users table), session, JWT blacklist, throttle and
 * reserving throttle contracts, and a user store that hashes with `pbkdf2Hasher`, the default
 * where node:crypto has no scrypt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pbkdf2Hasher } from 'drf-gatehouse'
import {
  authMigrations,
  jwtBlacklistMigrations,
  KyselyJwtBlacklistStore,
  KyselySessionStore,
  KyselyThrottleStore,
  KyselyTokenStore,
  KyselyUserStore,
  migrate,
  type AuthDatabase,
  type Database,
  type JwtBlacklistDatabase,
} from 'drf-gatehouse/kysely'
import {
  runJwtBlacklistStoreSuite,
  runReservingThrottleStoreSuite,
  runSessionStoreSuite,
  runThrottleStoreSuite,
  runTokenStoreSuite,
  runUserStoreSuite,
} from 'drf-gatehouse/testing'

/** Cheap scrypt for the suites' many hashes; the format and path are the default's. */
const CHEAP = { N: 1024, r: 8, p: 1 }

/** Registers the suites on the database `open` makes (called once, in `beforeAll`). */
export function runEdgeStoreSuites(open: () => Promise<Database<AuthDatabase & JwtBlacklistDatabase>>): void {
  let database: Database<AuthDatabase & JwtBlacklistDatabase>
  let made = 0
  const users = (): KyselyUserStore => new KyselyUserStore({ db: database.db, scrypt: CHEAP })
  const createUser = async (): Promise<string | number> => (await users().create({ username: `edge-${++made}`, password: null })).id

  beforeAll(async () => {
    database = await open()
    const all = [
      [authMigrations(database.dialect), undefined],
      [jwtBlacklistMigrations(database.dialect), 'gatehouse_jwt_migrations'],
      [KyselyThrottleStore.migrations(database.dialect), 'gatehouse_throttle_migrations'],
    ] as const
    for (const [migrations, table] of all) {
      const result = await migrate(database.db, migrations, table)
      if (result.error !== undefined) throw result.error
    }
  }, 120_000)
  afterAll(async () => database?.close())

  it('migrates once: a second run has nothing to do', async () => {
    const again = await migrate(database.db, authMigrations(database.dialect))
    expect(again.error).toBeUndefined()
    expect(again.results).toEqual([])
  })

  runUserStoreSuite({ describe, it, create: users })
  runTokenStoreSuite({ describe, it, create: () => new KyselyTokenStore({ db: database.db }), createUser })
  runTokenStoreSuite({
    describe,
    it,
    name: 'TokenStore contract, joined with the users table (findWithUser)',
    create: () => new KyselyTokenStore({ db: database.db, joinUsers: users().userTable }),
    createUser,
  })
  runSessionStoreSuite({ describe, it, create: (now) => new KyselySessionStore({ db: database.db, now }), createUser })
  runJwtBlacklistStoreSuite({ describe, it, create: () => new KyselyJwtBlacklistStore({ db: database.db }) })
  const throttles = (): KyselyThrottleStore => new KyselyThrottleStore({ db: database.db, dialect: database.dialect })
  runThrottleStoreSuite({ describe, it, create: throttles })
  runReservingThrottleStoreSuite({ describe, it, create: throttles })

  it('a user store hashing with pbkdf2Hasher stores Django-format hashes and checks them', async () => {
    const store = new KyselyUserStore({ db: database.db, passwordHasher: pbkdf2Hasher({ iterations: 1000 }) })
    const user = await store.create({ username: `pbkdf2-${++made}`, password: 'edge-pass-1' })
    expect(await store.authenticate(user.username, 'edge-pass-1')).toMatchObject({ id: user.id })
    expect(await store.authenticate(user.username, 'wrong-pass')).toBeNull()
    const row = await database.db.selectFrom('gatehouse_users').select('password').where('id', '=', Number(user.id)).executeTakeFirstOrThrow()
    expect(row.password).toMatch(/^pbkdf2_sha256\$1000\$[A-Za-z0-9]{22}\$/)
  })
}
