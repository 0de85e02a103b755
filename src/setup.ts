// Every piece stays constructible alone from gatehouse/kysely and gatehouse/redis; this file only
// wires what an app would repeat: one bus for every store and the cache, the token store joined
// to the user table, Redis prefixes that match the command line's.
import type { Kysely } from 'kysely'
import { createApi, type Api } from './core/api.js'
import type { AuthenticationScheme } from './core/authentication-scheme.js'
import { ConfigurationError } from './core/errors.js'
import type { Route } from './core/route.js'
import type { Settings } from './core/settings.js'
import { BasicAuthentication } from './authentication/basic-authentication.js'
import { MemoryTokenCache } from './authentication/memory-token-cache.js'
import { SessionAuthentication } from './authentication/session-authentication.js'
import { TokenAuthentication } from './authentication/token-authentication.js'
import type { ScryptParams } from './crypto/passwords.js'
import type { PasswordValidator } from './passwords/password-validation.js'
import type { PasswordBudget } from './crypto/password-budget.js'
import type { PasswordHasher } from './crypto/password-hasher.js'
import { openDatabase, type Database, type OpenDatabaseOptions } from './kysely/database.js'
import { KyselyNamedTokenStore } from './kysely/kysely-named-token-store.js'
import { KyselySessionStore } from './kysely/kysely-session-store.js'
import { KyselyTokenStore } from './kysely/kysely-token-store.js'
import { KyselyUserStore } from './kysely/kysely-user-store.js'
import { authMigrations, migrate } from './kysely/migrations.js'
import type { DialectName } from './kysely/dialect-name.js'
import type { Migration } from './kysely/migration-runner.js'
import type { AuthDatabase } from './kysely/schema.js'
import type { RedisClient, RedisClientOptions } from './redis/redis-client.js'
import type { RedisClusterClient } from './redis/redis-cluster-client.js'
import type { InvalidationBus } from './stores/invalidation-bus.js'
import type { JwtBlacklistStore } from './stores/jwt-blacklist-store.js'
import { LocalInvalidationBus } from './stores/local-invalidation-bus.js'
import type { SessionStore } from './stores/session-store.js'
import { chainTokenStores } from './stores/token-store-chain.js'
import type { UserCreatedHook } from './stores/user-created-hook.js'
import type { ReservingThrottleStore, ThrottleStore } from './throttling/throttle-store.js'
import { MemoryThrottleStore } from './throttling/memory-throttle-store.js'
import { LoginFailureThrottle, type LoginFailureThrottleOptions } from './throttling/login-failure-throttle.js'

/**
 * What {@link createGatehouse} builds its stores from. `DB` is your database's type when it
 * holds tables of yours beside gatehouse's (`interface AppDb extends AuthDatabase {…}`).
 */
export interface GatehouseOptions<DB extends AuthDatabase = AuthDatabase> {
  /**
   * The database: a URL for `openDatabase` (`postgres://…`, `sqlite:<path>`; `undefined` is
   * `sqlite:gatehouse.sqlite3`), opened here and closed by `close()`; or a database you opened
   * with `openDatabase`, which stays yours to close.
   */
  readonly database: string | undefined | Database<DB>
  /** Pool size and timeouts when `database` is a URL (`openDatabase`'s options). */
  readonly databaseOptions?: OpenDatabaseOptions
  /**
   * Redis, for sessions, throttle counters and the invalidation bus shared by every instance: a
   * `redis://` URL (connected here with `createRedisClient`, closed by `close()`) or a client from
   * `createRedisClient`/`createRedisClusterClient` (stays yours to close). Unset (or `''`): sessions
   * in SQL, throttle counters in this process's memory, invalidation within this process.
   */
  readonly redis?: string | RedisClient | RedisClusterClient | undefined
  /** `createRedisClient`'s timeouts when `redis` is a URL. */
  readonly redisOptions?: RedisClientOptions
  /**
   * Prefix of every Redis key and of the invalidation channel; the command line derives the
   * same channel from `GATEHOUSE_REDIS_PREFIX`, so keep the two equal. @default 'gatehouse:'
   */
  readonly redisPrefix?: string
  /**
   * Run gatehouse's migrations (users, tokens, sessions, named tokens) on start, then each
   * feature's (JWT's `gatehouse_jwt_tokens`, tracked in `gatehouse_jwt_migrations` as before).
   * @default true
   */
  readonly migrate?: boolean
  /**
   * Keep token → user answers in memory this long at most (`MemoryTokenCache`), dropped at once
   * on every change through the invalidation bus. Unset: no cache, every token request reads SQL.
   */
  readonly tokenCache?: { readonly ttlMs: number; readonly maxEntries?: number } | undefined
  /**
   * The user store's password cost, hasher, memory budget, creation hook and password rules
   * (`KyselyUserStore`'s options; the admin's forms read `passwordValidators` from the store).
   */
  readonly users?: {
    readonly scrypt?: ScryptParams
    readonly passwordHasher?: PasswordHasher
    readonly passwordBudget?: PasswordBudget
    readonly onUserCreated?: UserCreatedHook
    readonly passwordValidators?: readonly PasswordValidator[]
  }
  /**
   * Failed-login throttling (`LoginFailureThrottle`) counted in the throttle store: a rate such as
   * `'5/min'`, or the throttle's options but `store`. It guards Basic here; hand the built
   * `loginFailures` to the token obtain and login views too. Unset: off.
   */
  readonly loginFailures?: string | Omit<LoginFailureThrottleOptions, 'store'> | undefined
  /** `BasicAuthentication`'s realm. @default 'api' */
  readonly realm?: string
  /**
   * The API's settings (`createApi`'s), for the `api` this call returns and the features' routes
   * are built on; a function of the stores when a setting needs one (a throttle's `store`).
   * `authentication` defaults to the returned `authentication`. @default `createApi`'s defaults
   */
  readonly api?: Partial<Settings> | ((stores: GatehouseStores<DB>) => Partial<Settings>) | undefined
  /**
   * What to add: `jwt()` from `drf-gatehouse/jwt`, `oauth2()` from `drf-gatehouse/oauth2`, `admin()`
   * from `drf-gatehouse/admin`, or a feature of your own. Each comes from its own entry, so an app
   * loads only the ones it lists. Their tables migrate with gatehouse's (`migrate`).
   */
  readonly features?: readonly GatehouseFeature[] | undefined
}

/** The stores and schemes {@link createGatehouse} built, as its `api` option and the features see them. */
export interface GatehouseStores<DB extends AuthDatabase = AuthDatabase> {
  /** The database the stores use (opened here when `database` was a URL). */
  readonly database: Database<DB>
  /** The database's Kysely instance, typed with your tables too: use it for your own queries. */
  readonly db: Kysely<DB>
  readonly users: KyselyUserStore<AuthDatabase>
  /** DRF tokens (`gatehouse_tokens`), read with their user in one statement. */
  readonly tokens: KyselyTokenStore<AuthDatabase>
  /** Named tokens (`gatehouse_named_tokens`, prefixed `gth_`, kept as digests). */
  readonly namedTokens: KyselyNamedTokenStore<AuthDatabase>
  /** Redis sessions when `redis` is set, else SQL ones (`gatehouse_sessions`). */
  readonly sessions: SessionStore
  /** Throttle counters: Redis when `redis` is set, else this process's memory. */
  readonly throttleStore: ThrottleStore & ReservingThrottleStore
  /** The bus every store publishes on and the token cache listens to: Redis pub/sub or in-process. */
  readonly invalidation: InvalidationBus
  /** The token cache, when `tokenCache` was given. */
  readonly tokenCache: MemoryTokenCache | undefined
  /** Failed-login throttling on `throttleStore`, when `loginFailures` was given; Basic already uses it. */
  readonly loginFailures: LoginFailureThrottle | undefined
  /** The Redis client the stores use, or `null` without Redis. */
  readonly redis: RedisClient | RedisClusterClient | null
  /** The schemes on these stores: `token` reads DRF tokens, then named tokens (one cache for both). */
  readonly schemes: {
    readonly token: TokenAuthentication
    readonly session: SessionAuthentication
    readonly basic: BasicAuthentication
  }
  /**
   * `[schemes.token, schemes.session]`, DRF's default pair, then the schemes the features add
   * (JWT's, OAuth 2.0's): the default `authentication` of `api`.
   */
  readonly authentication: readonly AuthenticationScheme[]
}

/**
 * A part of gatehouse that {@link createGatehouse} adds on its stores, as better-auth's plugins
 * are: `jwt()`, `oauth2()`, `admin()`, or your own. The setup entry knows no feature: each lives
 * in its own entry and is loaded only by the apps that list it.
 */
export interface GatehouseFeature<Parts = unknown> {
  /** Its name, unique among the features of one call (`'jwt'`, `'oauth2'`, `'admin'`). */
  readonly name: string
  /**
   * Its tables: run by the call's `migrate` step after gatehouse's own, tracked in `tableName`
   * (a table per feature, so that a feature added or dropped later never disturbs the others').
   */
  readonly migrations?: { readonly tableName: string; migrations(dialect: DialectName): Record<string, Migration> } | undefined
  /**
   * Builds the feature on the stores, once the migrations ran (their `authentication` is the
   * Token and Session pair: the features' own schemes are not known yet).
   */
  setup(stores: GatehouseStores): GatehouseFeatureSetup<Parts>
}

/** What a feature's `setup` built. */
export interface GatehouseFeatureSetup<Parts> {
  /** What `auth.feature(f)` gives back (the JWT codec, the OAuth 2.0 scheme…). */
  readonly parts: Parts
  /** Schemes added to `authentication` (and so to the default `api`'s). @default none */
  readonly authentication?: readonly AuthenticationScheme[] | undefined
  /** simplejwt's blacklist, when the feature keeps one: the admin pages list and revoke its tokens. */
  readonly jwtBlacklist?: JwtBlacklistStore | undefined
  /** The feature's API routes (JSON views, for the OpenAPI document), built once the `api` exists. */
  routes?(context: GatehouseRouteContext): readonly Route[]
  /** The feature's HTML pages (the admin's), built once the `api` exists: mounted, not described. */
  pages?(context: GatehouseRouteContext): readonly Route[]
  /** Releases what the feature holds (run by `close()`, before the stores close). */
  close?(): Promise<void> | void
}

/** What a feature's routes are built with. */
export interface GatehouseRouteContext {
  /** The `api` the call built: the routes inherit its settings. */
  readonly api: Api
  /** The blacklist of the call's JWT feature, if any. */
  readonly jwtBlacklist: JwtBlacklistStore | undefined
}

/** Everything {@link createGatehouse} built: the stores, the schemes, the `api`, the features' routes, and `close()`. */
export interface Gatehouse<DB extends AuthDatabase = AuthDatabase> extends GatehouseStores<DB> {
  /** The API settings (`createApi`) from the `api` option, `authentication` defaulting to this call's. */
  readonly api: Api
  /**
   * Every feature's API routes on `api` (JWT's views…), for `mountRoutes` or `router`, and for
   * `openApiView`'s document beside yours.
   */
  readonly routes: readonly Route[]
  /** Every feature's HTML pages on `api` (the admin's): mount them too, but keep them out of the OpenAPI document. */
  readonly pages: readonly Route[]
  /**
   * What feature `f` (one of `features`) built: `auth.feature(tokens).codec` for `const tokens = jwt({…})`.
   * @throws ConfigurationError when `f` is not one of this call's features.
   */
  feature<Parts>(f: GatehouseFeature<Parts>): Parts
  /** Stops the cache and the bus, then closes what this call opened (Redis, the database). */
  close(): Promise<void>
}

/** The closable part of a Redis invalidation bus (typed here so this file never loads ioredis). */
interface ClosableBus extends InvalidationBus {
  close(): Promise<void>
}

/**
 * The composition root: opens (or takes) the database and Redis, runs the migrations (the
 * features' too), and wires the users, tokens, named tokens, sessions, throttle store, token
 * cache and invalidation bus once, with the Token, Session and Basic schemes on them, the `api`
 * and the features (JWT, OAuth 2.0, the admin pages) with their routes.
 *
 * ```ts
 * const auth = await createGatehouse({ database: process.env.DATABASE_URL, features: [jwt({ signingKey })] })
 * await mountRoutes(app, [...auth.routes, ...auth.pages, route('/me/', auth.api.view({ handlers }))])
 * ```
 *
 * Redis is loaded only when `redis` is set, so an app without it never needs `ioredis`; a
 * feature is loaded only by the app that imports it.
 *
 * @throws ConfigurationError when two features share a name.
 */
export async function createGatehouse<DB extends AuthDatabase = AuthDatabase>(options: GatehouseOptions<DB>): Promise<Gatehouse<DB>> {
  const features = options.features ?? []
  const names = new Set<string>()
  for (const feature of features) {
    if (names.has(feature.name)) throw new ConfigurationError('ERR_INVALID_SETTING', `createGatehouse: two features are named "${feature.name}"`)
    names.add(feature.name)
  }
  const ownsDatabase = typeof options.database === 'string' || options.database === undefined
  const database = ownsDatabase
    ? await openDatabase<DB>(options.database as string | undefined, options.databaseOptions)
    : (options.database as Database<DB>)
  // The stores only touch gatehouse's tables, which every DB has (DB extends AuthDatabase).
  const db = database.db as unknown as Kysely<AuthDatabase>
  let redis: RedisClient | RedisClusterClient | null = null
  let ownsRedis = false
  let invalidation: InvalidationBus | undefined
  let tokenCache: MemoryTokenCache | undefined
  const built: { feature: GatehouseFeature; setup: GatehouseFeatureSetup<unknown> }[] = []
  // Undoes what was built so far: the features (last first), the cache, the bus, then what this call opened.
  const closeAll = async (): Promise<void> => {
    try {
      for (const { setup } of [...built].reverse()) await setup.close?.()
    } finally {
      try {
        tokenCache?.close()
        // Only a Redis bus has a connection to close (its subscriber).
        if (invalidation !== undefined && 'close' in invalidation) await (invalidation as ClosableBus).close()
        if (ownsRedis) await redis?.close()
      } finally {
        if (ownsDatabase) await database.close()
      }
    }
  }
  try {
    if (options.migrate !== false) {
      await migrate(db, authMigrations(database.dialect))
      // Each feature's tables in a tracking table of its own: the names of one table's migrations
      // must stay in order (Kysely's rule), which features added or dropped later would break.
      for (const feature of features) {
        if (feature.migrations !== undefined) await migrate(db, feature.migrations.migrations(database.dialect), feature.migrations.tableName)
      }
    }
    const prefix = options.redisPrefix ?? 'gatehouse:'
    const redisOption = options.redis === '' ? undefined : options.redis
    let sessions: SessionStore
    let throttleStore: ThrottleStore & ReservingThrottleStore
    if (redisOption === undefined) {
      invalidation = new LocalInvalidationBus()
      sessions = new KyselySessionStore({ db })
      throttleStore = new MemoryThrottleStore()
    } else {
      // Imported here, not at the top: an app without Redis never loads ioredis.
      const redisEntry = await import('./redis/index.js')
      ownsRedis = typeof redisOption === 'string'
      const client = typeof redisOption === 'string' ? redisEntry.createRedisClient(redisOption, options.redisOptions) : redisOption
      redis = client
      invalidation = new redisEntry.RedisInvalidationBus({ redis: client, prefix })
      sessions = new redisEntry.RedisSessionStore({ redis: client, prefix: `${prefix}session:` })
      throttleStore = new redisEntry.RedisThrottleStore({ redis: client, prefix })
    }
    const users = new KyselyUserStore<AuthDatabase>({ db, invalidation, ...options.users })
    const tokens = new KyselyTokenStore<AuthDatabase>({ db, joinUsers: users.userTable, invalidation })
    const namedTokens = new KyselyNamedTokenStore<AuthDatabase>({ db, joinUsers: users.userTable, invalidation })
    tokenCache = options.tokenCache === undefined ? undefined : new MemoryTokenCache({ ...options.tokenCache, invalidation })
    const token = new TokenAuthentication({ tokens: chainTokenStores(tokens, namedTokens), users, cache: tokenCache })
    const session = new SessionAuthentication({ sessions, users })
    const loginFailures =
      options.loginFailures === undefined
        ? undefined
        : new LoginFailureThrottle(typeof options.loginFailures === 'string' ? { store: throttleStore, rate: options.loginFailures } : { ...options.loginFailures, store: throttleStore })
    const basic = new BasicAuthentication({ users, realm: options.realm ?? 'api', loginFailures })
    const core = {
      database,
      db: database.db,
      users,
      tokens,
      namedTokens,
      sessions,
      throttleStore,
      invalidation,
      tokenCache,
      loginFailures,
      redis,
      schemes: { token, session, basic },
    }
    const pair: readonly AuthenticationScheme[] = [token, session]
    for (const feature of features) {
      // A feature sees gatehouse's tables only (DB extends AuthDatabase).
      built.push({ feature, setup: feature.setup({ ...core, authentication: pair } as unknown as GatehouseStores) })
    }
    const authentication = [...pair, ...built.flatMap(({ setup }) => setup.authentication ?? [])]
    const stores: GatehouseStores<DB> = { ...core, authentication }
    const settings = typeof options.api === 'function' ? options.api(stores) : options.api
    const api = createApi({ authentication, ...settings })
    const jwtBlacklist = built.find(({ setup }) => setup.jwtBlacklist !== undefined)?.setup.jwtBlacklist
    const routes = built.flatMap(({ setup }) => setup.routes?.({ api, jwtBlacklist }) ?? [])
    const pages = built.flatMap(({ setup }) => setup.pages?.({ api, jwtBlacklist }) ?? [])
    return {
      ...stores,
      api,
      routes,
      pages,
      feature: <Parts>(f: GatehouseFeature<Parts>): Parts => {
        const found = built.find(({ feature }) => feature === f)
        if (found === undefined) throw new ConfigurationError('ERR_INVALID_SETTING', `createGatehouse: the feature "${f.name}" is not one of this call's features`)
        return found.setup.parts as Parts
      },
      close: closeAll,
    }
  } catch (error) {
    await closeAll().catch(() => undefined)
    throw error
  }
}
