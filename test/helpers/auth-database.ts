import type { Kysely } from 'kysely'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { authMigrations, migrate } from '../../src/kysely/migrations.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import type { TestDatabase } from './databases.js'

/** A fresh database with gatehouse's auth tables migrated. */
export interface AuthTestDatabase {
  readonly db: Kysely<AuthDatabase>
  readonly database: Database<AuthDatabase>
  close(): Promise<void>
}

/** Opens `test`'s URL, runs the auth migrations; `close()` also drops the database. */
export async function openAuthDatabase(test: TestDatabase): Promise<AuthTestDatabase> {
  // Generous timeouts: these suites test what the stores store, not how fast; on a busy machine
  // a burst that waits on one lock (30 concurrent creates) can pass the 2 s default.
  const database = await openDatabase<AuthDatabase>(test.url, { statementTimeoutMs: 20_000, connectTimeoutMs: 20_000 })
  await migrate(database.db, authMigrations(database.dialect))
  return {
    db: database.db,
    database,
    close: async () => {
      await database.close()
      await test.drop()
    },
  }
}
