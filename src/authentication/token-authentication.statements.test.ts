/**
 * What one token-authenticated request costs in SQL statements, counted by a Kysely `log`
 * hook on real SQLite and PostgreSQL: two lookups (token, then user) without a joined
 * store, one statement with `KyselyTokenStore({ users })`, none on a `MemoryTokenCache` hit.
 */
import { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryTokenCache } from './memory-token-cache.js'
import { TokenAuthentication } from './token-authentication.js'
import { AuthenticationFailed } from '../core/errors.js'
import { createDialect, parseDatabaseUrl } from '../kysely/database.js'
import { KyselyTokenStore } from '../kysely/kysely-token-store.js'
import { KyselyUserStore } from '../kysely/kysely-user-store.js'
import { authMigrations, migrate } from '../kysely/migrations.js'
import type { AuthDatabase } from '../kysely/schema.js'
import { LocalInvalidationBus } from '../stores/local-invalidation-bus.js'
import { buildRequest } from '../../test/helpers/build-request.js'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`statements per token authentication on ${backend.name}`, () => {
    let target: TestDatabase
    let db: Kysely<AuthDatabase>
    const statements: string[] = []
    let users: KyselyUserStore
    let alice: string
    let carol: string

    beforeAll(async () => {
      target = await backend.create()
      const dialectName = parseDatabaseUrl(target.url).dialect
      db = new Kysely<AuthDatabase>({
        dialect: await createDialect(parseDatabaseUrl(target.url)),
        log: (event) => void statements.push(event.query.sql),
      })
      await migrate(db, authMigrations(dialectName))
      users = new KyselyUserStore({ db, scrypt: { N: 1024, r: 8, p: 1 } })
      const tokens = new KyselyTokenStore({ db })
      alice = (await tokens.getOrCreate((await users.create({ username: 'alice', password: null })).id)).key
      carol = (await tokens.getOrCreate((await users.create({ username: 'carol', password: null, isActive: false })).id)).key
    })
    afterAll(async () => {
      await db?.destroy()
      await target?.drop()
    })

    /** Authenticates `Token <key>` and answers the outcome (a username or the refusal) and the statements it ran. */
    async function measure(scheme: TokenAuthentication, key: string): Promise<{ outcome: string; statements: number }> {
      statements.length = 0
      let outcome: string
      try {
        outcome = (await scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } })))?.user.username ?? 'not attempted'
      } catch (error) {
        outcome = error instanceof AuthenticationFailed ? String(error.detail) : `unexpected: ${String(error)}`
      }
      return { outcome, statements: statements.length }
    }

    it('without findWithUser (before): two statements, the token then the user', async () => {
      const scheme = new TokenAuthentication({ tokens: new KyselyTokenStore({ db }), users })
      expect(await measure(scheme, alice)).toEqual({ outcome: 'alice', statements: 2 })
      expect(await measure(scheme, carol)).toEqual({ outcome: 'User inactive or deleted.', statements: 2 })
      expect(await measure(scheme, 'f'.repeat(40))).toEqual({ outcome: 'Invalid token.', statements: 1 })
    })

    it('with KyselyTokenStore({ users }) (after): exactly one statement, a join', async () => {
      const scheme = new TokenAuthentication({ tokens: new KyselyTokenStore({ db, joinUsers: users.userTable }), users })
      expect(await measure(scheme, alice)).toEqual({ outcome: 'alice', statements: 1 })
      expect(statements[0]).toMatch(/ join "gatehouse_users"/)
      expect(await measure(scheme, carol)).toEqual({ outcome: 'User inactive or deleted.', statements: 1 })
      expect(await measure(scheme, 'f'.repeat(40))).toEqual({ outcome: 'Invalid token.', statements: 1 })
      expect(await measure(scheme, 'f'.repeat(41))).toEqual({ outcome: 'Invalid token.', statements: 0 })
    })

    it('with a MemoryTokenCache: one statement on the first request, none while cached; unknown keys always reach the database', async () => {
      const cache = new MemoryTokenCache({ ttlMs: 60_000, invalidation: new LocalInvalidationBus() })
      const scheme = new TokenAuthentication({ tokens: new KyselyTokenStore({ db, joinUsers: users.userTable }), users, cache })
      expect(await measure(scheme, alice)).toEqual({ outcome: 'alice', statements: 1 })
      expect(await measure(scheme, alice)).toEqual({ outcome: 'alice', statements: 0 })
      expect(await measure(scheme, carol)).toEqual({ outcome: 'User inactive or deleted.', statements: 1 })
      expect(await measure(scheme, carol)).toEqual({ outcome: 'User inactive or deleted.', statements: 0 })
      for (let i = 0; i < 3; i++) expect(await measure(scheme, 'f'.repeat(40))).toEqual({ outcome: 'Invalid token.', statements: 1 })
      cache.close()
    })
  })
}
