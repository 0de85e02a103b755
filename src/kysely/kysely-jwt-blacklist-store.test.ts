// KyselyJwtBlacklistStore against the JwtBlacklistStore contract, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { BACKENDS } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'
import { runJwtBlacklistStoreSuite } from '../testing/index.js'
import { openDatabase, type Database } from './database.js'
import { jwtBlacklistMigrations } from './jwt-blacklist-migrations.js'
import { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from './kysely-jwt-blacklist-store.js'
import { migrate } from './migrations.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyJwtBlacklistStore on ${backend.name}`, () => {
    let database: Database<JwtBlacklistDatabase>
    let drop: () => Promise<void>
    beforeAll(async () => {
      const test = await backend.create()
      drop = () => test.drop()
      database = await openDatabase<JwtBlacklistDatabase>(test.url)
      await migrate(database.db, jwtBlacklistMigrations(database.dialect), 'gatehouse_jwt_migrations')
    })
    afterAll(async () => {
      await database?.close()
      await drop?.()
    })
    runJwtBlacklistStoreSuite({ describe, it, create: () => new KyselyJwtBlacklistStore({ db: database.db }) })
  })
}
