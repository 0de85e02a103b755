import type { Kysely } from 'kysely'
import { BasicAuthentication } from '../src/authentication/basic-authentication.js'
import { SessionAuthentication } from '../src/authentication/session-authentication.js'
import { TokenAuthentication } from '../src/authentication/token-authentication.js'
import { createApi, type Api } from '../src/core/api.js'
import { openDatabase, type Database } from '../src/kysely/database.js'
import { KyselySessionStore } from '../src/kysely/kysely-session-store.js'
import { KyselyTokenStore } from '../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../src/kysely/kysely-user-store.js'
import { authMigrations, migrate } from '../src/kysely/migrations.js'
import type { AuthDatabase } from '../src/kysely/schema.js'
import { articleMigrations, type ReferenceDatabase } from './database.js'
import { seedIfEmpty } from './seed.js'

/** Where the reference API reads its configuration (environment variables by default). */
export interface ReferenceConfig {
  /** `DATABASE_URL`; unset means the embedded SQLite file `gatehouse.sqlite3`. */
  readonly databaseUrl?: string | undefined
  /**
   * PostgreSQL connect and statement timeout in ms: past it a request answers 503.
   * Default: `GATEHOUSE_DB_TIMEOUT_MS`, else the driver defaults (5 s connect, 10 s statement).
   */
  readonly dbTimeoutMs?: number | undefined
}

/** The pool timeouts of `config`, or of `GATEHOUSE_DB_TIMEOUT_MS`; none when neither is set. */
function databaseTimeouts(config: ReferenceConfig): { connectTimeoutMs?: number; statementTimeoutMs?: number } {
  const raw = config.dbTimeoutMs ?? process.env['GATEHOUSE_DB_TIMEOUT_MS']
  if (raw === undefined || raw === '') return {}
  const ms = Number(raw)
  if (!Number.isInteger(ms) || ms <= 0) throw new Error(`GATEHOUSE_DB_TIMEOUT_MS must be a positive integer, got "${String(raw)}"`)
  return { connectTimeoutMs: ms, statementTimeoutMs: ms }
}

/** Everything the reference API's routes share: the database, the stores and the API settings. */
export interface ReferenceContext {
  readonly database: Database<ReferenceDatabase>
  readonly db: Kysely<ReferenceDatabase>
  readonly users: KyselyUserStore
  readonly tokens: KyselyTokenStore
  readonly sessions: KyselySessionStore
  readonly schemes: {
    readonly token: TokenAuthentication
    readonly session: SessionAuthentication
    readonly basic: BasicAuthentication
  }
  /** Settings of reference-api.md: Token, Session, Basic; page number with page size 10. */
  readonly api: Api
  close(): Promise<void>
}

/** Runs gatehouse's and the reference API's migrations. */
export async function migrateReference(database: Database<ReferenceDatabase>): Promise<void> {
  const db = database.db as unknown as Kysely<unknown>
  await migrate(db, authMigrations(database.dialect), 'gatehouse_migrations')
  await migrate(db, articleMigrations(database.dialect), 'reference_api_migrations')
}

/** Opens the database, migrates it, seeds it when empty, and builds the stores and settings. */
export async function openReferenceContext(config: ReferenceConfig = {}): Promise<ReferenceContext> {
  const database = await openDatabase<ReferenceDatabase>(config.databaseUrl, databaseTimeouts(config))
  try {
    await migrateReference(database)
    await seedIfEmpty(database.db, database.dialect)
  } catch (error) {
    await database.close()
    throw error
  }
  const authDb = database.db as unknown as Kysely<AuthDatabase>
  const users = new KyselyUserStore(authDb)
  const tokens = new KyselyTokenStore(authDb)
  const sessions = new KyselySessionStore(authDb)
  const schemes = {
    token: new TokenAuthentication({ tokens, users }),
    session: new SessionAuthentication({ sessions, users }),
    basic: new BasicAuthentication({ users, realm: 'api' }),
  }
  const api = createApi({
    authentication: [schemes.token, schemes.session, schemes.basic],
    pageSize: 10,
  })
  return {
    database,
    db: database.db,
    users,
    tokens,
    sessions,
    schemes,
    api,
    close: () => database.close(),
  }
}
