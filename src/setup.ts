// Every piece stays constructible alone from gatehouse/kysely and gatehouse/redis; this file only
// wires what an app would repeat: one bus for every store and the cache, the token store joined
// to the user table, Redis prefixes that match the command line's.
import type { Kysely } from 'kysely'
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
import type { AuthDatabase } from './kysely/schema.js'
import type { RedisClient, RedisClientOptions } from './redis/redis-client.js'
import type { RedisClusterClient } from './redis/redis-cluster-client.js'
import type { InvalidationBus } from './stores/invalidation-bus.js'
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
  /** Run gatehouse's migrations (users, tokens, sessions, named tokens) on start. @default true */
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
}

/** Everything {@link createGatehouse} built: the stores, the schemes on them, and `close()`. */
export interface Gatehouse<DB extends AuthDatabase = AuthDatabase> {
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
  /** `[schemes.token, schemes.session]`: DRF's default pair, for `createApi({ authentication })`. */
  readonly authentication: readonly [TokenAuthentication, SessionAuthentication]
  /** Stops the cache and the bus, then closes what this call opened (Redis, the database). */
  close(): Promise<void>
}

/** The closable part of a Redis invalidation bus (typed here so this file never loads ioredis). */
interface ClosableBus extends InvalidationBus {
  close(): Promise<void>
}

/**
 * The composition root: opens (or takes) the database and Redis, runs the migrations, and wires
 * the users, tokens, named tokens, sessions, throttle store, token cache and invalidation bus
 * once, with the Token, Session and Basic schemes on them.
 *
 * ```ts
 * const auth = await createGatehouse({ database: process.env.DATABASE_URL, redis: process.env.REDIS_URL })
 * const api = createApi({ authentication: auth.authentication })
 * ```
 *
 * Redis is loaded only when `redis` is set, so an app without it never needs `ioredis`.
 */
export async function createGatehouse<DB extends AuthDatabase = AuthDatabase>(options: GatehouseOptions<DB>): Promise<Gatehouse<DB>> {
  const ownsDatabase = typeof options.database === 'string' || options.database === undefined
  const database = ownsDatabase
    ? await openDatabase<DB>(options.database as string | undefined, options.databaseOptions)
    : (options.database as Database<DB>)
  // The stores only touch gatehouse's tables, which every DB has (DB extends AuthDatabase).
  const db = database.db as unknown as Kysely<AuthDatabase>
  let redis: RedisClient | RedisClusterClient | null = null
  let ownsRedis = false
  try {
    if (options.migrate !== false) await migrate(db, authMigrations(database.dialect))
    const prefix = options.redisPrefix ?? 'gatehouse:'
    const redisOption = options.redis === '' ? undefined : options.redis
    let invalidation: InvalidationBus
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
    const tokenCache = options.tokenCache === undefined ? undefined : new MemoryTokenCache({ ...options.tokenCache, invalidation })
    const token = new TokenAuthentication({ tokens: chainTokenStores(tokens, namedTokens), users, cache: tokenCache })
    const session = new SessionAuthentication({ sessions, users })
    const loginFailures =
      options.loginFailures === undefined
        ? undefined
        : new LoginFailureThrottle(typeof options.loginFailures === 'string' ? { store: throttleStore, rate: options.loginFailures } : { ...options.loginFailures, store: throttleStore })
    const basic = new BasicAuthentication({ users, realm: options.realm ?? 'api', loginFailures })
    const openedRedis = ownsRedis ? redis : null
    return {
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
      authentication: [token, session],
      close: async () => {
        try {
          tokenCache?.close()
          // Only a Redis bus has a connection to close (its subscriber).
          if ('close' in invalidation) await (invalidation as ClosableBus).close()
          await openedRedis?.close()
        } finally {
          if (ownsDatabase) await database.close()
        }
      },
    }
  } catch (error) {
    if (ownsRedis) await redis?.close().catch(() => undefined)
    if (ownsDatabase) await database.close()
    throw error
  }
}
