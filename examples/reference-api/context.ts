import type { CountStrategy, PasswordHasher, ScryptParams } from 'drf-gatehouse'
import { admin } from 'drf-gatehouse/admin'
import { migrate, type KyselyJwtBlacklistStore } from 'drf-gatehouse/kysely'
import { createRedisClusterClient } from 'drf-gatehouse/redis'
import { createGatehouse, type Gatehouse } from 'drf-gatehouse/setup'
import { jwt, type JwtCodec } from 'drf-gatehouse/jwt'
import { oauth2, type OAuth2Authentication } from 'drf-gatehouse/oauth2'
import type { ReferenceConfig } from './config.js'
import { articleMigrations, type ReferenceDatabase } from './database.js'
import { seedIfEmpty } from './seed.js'
import { storedSecret } from './secret.js'
import { referenceApiSettings } from './settings.js'

export { envCount, referenceConfigFromEnv, type ReferenceConfig } from './config.js'

/** How the seed hashes its users' passwords: `config`'s hasher, else scrypt at `config.scrypt`. */
function seedPasswords(config: ReferenceConfig): PasswordHasher | ScryptParams | undefined {
  return config.passwordHasher ?? config.scrypt
}

/** The pool timeouts of `config`; the driver defaults when unset. */
function databaseTimeouts(config: ReferenceConfig): { connectTimeoutMs?: number; statementTimeoutMs?: number } {
  const ms = config.dbTimeoutMs
  // The statement gets the whole budget, waiting for a connection half of it.
  return ms === undefined ? {} : { connectTimeoutMs: Math.max(1, Math.ceil(ms / 2)), statementTimeoutMs: ms }
}

/** What the reference API's routes share: everything `createGatehouse` built, and the reference's own. */
export interface ReferenceContext extends Gatehouse<ReferenceDatabase> {
  /** The JWT codec when `jwt` is set (the `/api/jwt/` routes, among `routes`, are on), else `null`. */
  readonly jwt: JwtCodec | null
  /** simplejwt's token blacklist, in SQL (`gatehouse_jwt_tokens`), when `jwt` is set. */
  readonly jwtBlacklist: KyselyJwtBlacklistStore | undefined
  /** The OAuth 2.0 resource-server scheme when `oauth2` is set, else `null`. */
  readonly oauth2: OAuth2Authentication | null
  /** Signing secrets (cursors): the first signs, all verify. */
  readonly secrets: readonly string[]
  /** `count` of the config (`GATEHOUSE_COUNT`), for the routes with their own page-number paginator that follow it (`/api/articles/filtered/`). */
  readonly count?: CountStrategy | undefined
}

/**
 * What the route modules (routes/) read: the parts of a `ReferenceContext` the Worker entry
 * (worker.ts) builds too, on D1 and a Durable Object, where `createGatehouse` does not run.
 */
export type ReferenceRoutesContext = Pick<
  ReferenceContext,
  'api' | 'db' | 'database' | 'users' | 'tokens' | 'namedTokens' | 'sessions' | 'throttleStore' | 'loginFailures' | 'schemes' | 'routes' | 'pages' | 'jwt' | 'oauth2' | 'secrets' | 'count'
>

/**
 * Opens the database and Redis, migrates and builds the stores, the settings (Token, Session,
 * Basic; page number with page size 10), JWT, OAuth 2.0 and the admin pages with one
 * `createGatehouse` call, then runs the reference's own migrations and seeds an empty database.
 */
export async function openReferenceContext(config: ReferenceConfig = {}): Promise<ReferenceContext> {
  if (config.redisUrl !== undefined && config.redisClusterNodes !== undefined) {
    throw new Error('set REDIS_URL (one Redis server) or REDIS_CLUSTER_NODES (a Redis Cluster), not both')
  }
  // The JWT and OAuth 2.0 schemes guard their own routes only (reference-api.md), not the API's default.
  const jwtFeature = config.jwt === undefined ? null : jwt({ ...config.jwt, prefix: '/api/jwt/', authentication: false })
  const oauth2Feature =
    config.oauth2 === undefined ? null : oauth2({ openApi: { scopes: { read: 'Read access', write: 'Write access' } }, ...config.oauth2, authentication: false })
  const redisOptions =
    config.redisTimeoutMs === undefined ? {} : { commandTimeoutMs: config.redisTimeoutMs, connectTimeoutMs: config.redisTimeoutMs }
  // createGatehouse connects (and closes) a Redis URL itself; a cluster client is made here and closed by close().
  const cluster = config.redisClusterNodes === undefined ? null : createRedisClusterClient(config.redisClusterNodes, redisOptions)
  let auth: Gatehouse<ReferenceDatabase>
  try {
    auth = await createGatehouse<ReferenceDatabase>({
      database: config.database?.opened ?? config.databaseUrl,
      databaseOptions: databaseTimeouts(config),
      redis: cluster ?? config.redisUrl,
      redisOptions,
      ...(config.redisPrefix === undefined ? {} : { redisPrefix: config.redisPrefix }),
      tokenCache: config.tokenCacheTtlMs === undefined ? undefined : { ttlMs: config.tokenCacheTtlMs, maxEntries: 10_000 },
      users: {
        ...(config.scrypt === undefined ? {} : { scrypt: config.scrypt }),
        ...(config.passwordHasher === undefined ? {} : { passwordHasher: config.passwordHasher }),
        ...(config.passwordBudget === undefined ? {} : { passwordBudget: config.passwordBudget }),
      },
      loginFailures: config.loginFailures,
      api: ({ schemes }) => referenceApiSettings(config, schemes),
      features: [...(jwtFeature === null ? [] : [jwtFeature]), ...(oauth2Feature === null ? [] : [oauth2Feature]), admin({ siteTitle: 'gatehouse reference API administration' })],
    })
  } catch (error) {
    await cluster?.close()
    throw error
  }
  const close = async (): Promise<void> => {
    try {
      await auth.close()
    } finally {
      await cluster?.close()
    }
  }
  try {
    await migrate(auth.db, articleMigrations(auth.database.dialect), 'reference_api_migrations')
    await seedIfEmpty(auth.db, auth.database.dialect, seedPasswords(config), { transactions: config.database?.transactions ?? true })
    const secrets = config.secrets ?? [await storedSecret(auth.db)]
    const jwtParts = jwtFeature === null ? null : auth.feature(jwtFeature)
    return {
      ...auth,
      jwt: jwtParts?.codec ?? null,
      jwtBlacklist: jwtParts?.blacklist,
      oauth2: oauth2Feature === null ? null : auth.feature(oauth2Feature).authentication,
      secrets,
      count: config.count,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
