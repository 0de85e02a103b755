// `drf-gatehouse flush-expired-tokens` (simplejwt's flushexpiredtokens), spawned as a real process
// on SQLite and (with DATABASE_URL) PostgreSQL: expired rows go, blacklisted or not; live ones stay.
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/kysely/database.js'
import { jwtBlacklistMigrations } from '../../src/kysely/jwt-blacklist-migrations.js'
import { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from '../../src/kysely/kysely-jwt-blacklist-store.js'
import { migrate } from '../../src/kysely/migrations.js'
import { runCli } from '../helpers/cli-process.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { backendUnavailable } from '../helpers/requirements.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`flush-expired-tokens on ${backend.name}`, () => {
    let target: TestDatabase | undefined
    afterEach(async () => target?.drop())

    it('deletes expired JWT rows only, and says how many', async () => {
      target = await backend.create()
      const database = await openDatabase<JwtBlacklistDatabase>(target.url)
      try {
        await migrate(database.db, jwtBlacklistMigrations(database.dialect), 'gatehouse_jwt_migrations')
        const store = new KyselyJwtBlacklistStore({ db: database.db })
        await store.blacklist({ jti: 'old-blacklisted', userId: 1, expiresAt: new Date(Date.now() - 60_000) })
        await store.addOutstanding({ jti: 'old-outstanding', userId: 1, expiresAt: new Date(Date.now() - 60_000) })
        await store.blacklist({ jti: 'live', userId: 2, expiresAt: new Date(Date.now() + 3_600_000) })
        const env: NodeJS.ProcessEnv = { ...process.env }
        delete env['DATABASE_URL']
        const run = await runCli(['flush-expired-tokens', '--database', target.url], { env, input: '' })
        expect(run).toMatchObject({ code: 0, stdout: 'Deleted 2 expired tokens\n' })
        const left = await database.db.selectFrom('gatehouse_jwt_tokens').select('jti').execute()
        expect(left.map((r) => r.jti)).toEqual(['live'])
        expect(await store.isBlacklisted('live')).toBe(true)
      } finally {
        await database.close()
      }
    }, 90_000)
  })
}
