/**
 * The reference API's configuration and how it is read from environment variables: the Node
 * entry reads `process.env`, the Worker entry (worker.ts) its bindings, with the same names and
 * checks. Nothing here imports a Node module, so the Worker bundles it.
 */
import { PasswordBudget, parseRate, redactConfigValue, type CountStrategy, type PasswordHasher, type Rate, type ScryptParams } from 'drf-gatehouse'
import type { Database } from 'drf-gatehouse/kysely'
import { parseRedisClusterNodes } from 'drf-gatehouse/redis'
import { JWT_ALGORITHMS, type JwtAlgorithm, type JwtFeatureOptions } from 'drf-gatehouse/jwt'
import type { OAuth2FeatureOptions } from 'drf-gatehouse/oauth2'
import type { ReferenceDatabase } from './database.js'

/** Environment variables by name, as `process.env` or a Worker's `env` holds them. */
export type ReferenceEnv = Readonly<Record<string, string | undefined>>

/** Where the reference API reads its configuration (environment variables by default). */
export interface ReferenceConfig {
  /** `DATABASE_URL`; unset means the embedded SQLite file `gatehouse.sqlite3`. */
  readonly databaseUrl?: string | undefined
  /**
   * A database the caller opened, instead of `databaseUrl` (it stays the caller's to close): the
   * workerd tests' D1, reached from Node through Miniflare. `transactions: false` for one that
   * runs none (D1): the seed then writes one statement at a time.
   */
  readonly database?: { readonly opened: Database<ReferenceDatabase>; readonly transactions: boolean } | undefined
  /**
   * PostgreSQL statement timeout in ms (`GATEHOUSE_DB_TIMEOUT_MS`); waiting for a connection
   * gets half of it. Past it a request answers 503. Unset: the library's 1 s connection wait,
   * 2 s statement (the server's own statement timeout 1.5 s).
   */
  readonly dbTimeoutMs?: number | undefined
  /**
   * `REDIS_URL`: when set, sessions and throttle counters live in Redis, shared by
   * every instance; unset means SQL sessions and in-process throttle counters.
   */
  readonly redisUrl?: string | undefined
  /**
   * `REDIS_CLUSTER_NODES`: a Redis Cluster's seed nodes (`host:port,host:port`, or `redis://` /
   * `rediss://` URLs carrying a password) instead of one server at `redisUrl`; everything that
   * `redisUrl` puts in Redis then lives in the cluster. Setting both is an error.
   */
  readonly redisClusterNodes?: string | undefined
  /** Prefix of every Redis key the reference API writes (`GATEHOUSE_REDIS_PREFIX`). @default 'gatehouse:' */
  readonly redisPrefix?: string | undefined
  /** Redis command and connect timeout in ms (`GATEHOUSE_REDIS_TIMEOUT_MS`). @default 2000 */
  readonly redisTimeoutMs?: number | undefined
  /**
   * Trusted reverse proxies in front of the API (`GATEHOUSE_NUM_PROXIES`): how
   * throttles find the client address in `X-Forwarded-For`. 0 ignores the header.
   * @default 0
   */
  readonly numProxies?: number | undefined
  /**
   * Signing secrets (`GATEHOUSE_SECRET`, comma-separated: the first signs, all verify).
   * Unset: a random secret made on the first start and kept in the database.
   */
  readonly secrets?: readonly string[] | undefined
  /**
   * Host names the API answers to (`GATEHOUSE_ALLOWED_HOSTS`, comma-separated, Django's
   * `ALLOWED_HOSTS` rules). @default ['localhost', '127.0.0.1', '[::1]']
   */
  readonly allowedHosts?: readonly string[] | undefined
  /**
   * scrypt cost of the seed users' hashes and of new and rehashed ones. Unset: the
   * library's default, OWASP's N=2^17, r=8, p=1 (about 0.3 s per login check). Tests and
   * demos that log in many times may ask for a cheaper N with `GATEHOUSE_SCRYPT_N`
   * (a power of two, 1024 or more, r=8, p=1); never lower it in production.
   */
  readonly scrypt?: ScryptParams | undefined
  /**
   * The user store's hasher instead of scrypt at `scrypt`, for the seed users too: the workerd
   * tests' `pbkdf2Hasher`, the hasher of the Worker serving the same database. Unset: scrypt.
   */
  readonly passwordHasher?: PasswordHasher | undefined
  /**
   * The memory budget of password hashing: `GATEHOUSE_PASSWORD_CHECKS` checks at once (128 MiB
   * each at the default scrypt cost) and `GATEHOUSE_PASSWORD_QUEUE` waiting; past both, 503
   * with `Retry-After`. Unset: the library's process-wide default, 2 at once and 32 waiting.
   */
  readonly passwordBudget?: PasswordBudget | undefined
  /**
   * Failed-login throttling (`GATEHOUSE_LOGIN_FAILURES`, a rate such as `5/min`): failed
   * password checks per username and per client address, counted in the throttle store
   * (Redis when `redisUrl` is set) by Basic, token obtain and login alike; past the rate
   * they answer 429. Unset: off.
   */
  readonly loginFailures?: string | undefined
  /**
   * Token cache TTL in ms (`GATEHOUSE_TOKEN_CACHE_TTL_MS`): token → user answers are kept
   * this long at most (invalidated at once on regenerate, delete, deactivate and password
   * change, across instances through Redis when `redisUrl` is set). Unset: no cache.
   */
  readonly tokenCacheTtlMs?: number | undefined
  /**
   * How the global page-number style and `/api/articles/filtered/` count (`GATEHOUSE_COUNT`):
   * `exact` (DRF's, the default), `none`, `estimated` (PostgreSQL's planner), `capped:N` or
   * `cached:MS`. For benchmarks and demos of the count strategies (docs/pagination.md, and a
   * broad filter's count at scale); anything but `exact` changes `count`.
   */
  readonly count?: CountStrategy | undefined
  /**
   * The JWT routes (`/api/jwt/`), simplejwt's settings: `GATEHOUSE_JWT_SIGNING_KEY` (HS256's key, a
   * Django app's `SECRET_KEY` keeps its simplejwt clients' tokens valid; the private key in PEM with
   * an `RS*`/`ES*` `GATEHOUSE_JWT_ALGORITHM`, whose public half `/api/jwt/jwks/` serves) and
   * `GATEHOUSE_JWT_VERIFYING_KEY`. Unset: the routes are off.
   */
  readonly jwt?: Omit<JwtFeatureOptions, 'prefix' | 'authentication'> | undefined
  /**
   * The OAuth 2.0 resource server of `/api/schemes/oauth2/` and `-write/`: `GATEHOUSE_OAUTH_ISSUER`,
   * `GATEHOUSE_OAUTH_AUDIENCE` (comma-separated, required with the issuer) and
   * `GATEHOUSE_OAUTH_INTROSPECTION` (`client_id:client_secret`, for opaque tokens). Unset: off.
   */
  readonly oauth2?: Omit<OAuth2FeatureOptions, 'authentication'> | undefined
}

/** `GATEHOUSE_COUNT` as a count strategy, or `undefined` when unset; a malformed value throws. */
export function envCount(env: ReferenceEnv): CountStrategy | undefined {
  const raw = env['GATEHOUSE_COUNT']
  if (raw === undefined || raw === '') return undefined
  if (raw === 'exact' || raw === 'none' || raw === 'estimated') return raw
  const match = /^(capped|cached):([0-9]{1,9})$/.exec(raw)
  const n = Number(match?.[2])
  if (match === null || n < 1) throw new Error(`GATEHOUSE_COUNT must be exact, none, estimated, capped:N or cached:MS, got "${redactConfigValue(raw)}"`)
  return match[1] === 'capped' ? { capped: n } : { cachedMs: n }
}

/** The length of `text` in UTF-8 bytes (no `Buffer` in a Worker). */
function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length
}

/** A non-negative integer from an environment variable, or `undefined` when unset. */
export function envInteger(env: ReferenceEnv, name: string, min: number): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  const value = Number(raw)
  if (!/^[0-9]+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${redactConfigValue(raw)}"`)
  }
  return value
}

/** `GATEHOUSE_LOGIN_FAILURES` checked as a rate (a typo stops start-up), or `undefined` when unset. */
export function envRate(env: ReferenceEnv, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  const rate: Rate = parseRate(raw)
  if (rate.limit < 1) throw new Error(`${name} must allow at least one failure, got "${redactConfigValue(raw)}"`)
  return raw
}

/** `REDIS_CLUSTER_NODES` checked (a typo stops start-up), or `undefined` when unset. */
function envClusterNodes(env: ReferenceEnv): string | undefined {
  const raw = env['REDIS_CLUSTER_NODES']
  if (raw === undefined || raw === '') return undefined
  parseRedisClusterNodes(raw)
  return raw
}

/** `GATEHOUSE_SCRYPT_N` as scrypt parameters (r=8, p=1), or `undefined` when unset. */
function envScrypt(env: ReferenceEnv): ScryptParams | undefined {
  const n = envInteger(env, 'GATEHOUSE_SCRYPT_N', 1024)
  if (n === undefined) return undefined
  if ((n & (n - 1)) !== 0 || n > 2 ** 20) throw new Error(`GATEHOUSE_SCRYPT_N must be a power of two from 1024 to 2^20, got "${n}"`)
  return { N: n, r: 8, p: 1 }
}

/** `GATEHOUSE_PASSWORD_CHECKS` and `GATEHOUSE_PASSWORD_QUEUE` as a budget, or `undefined` when both are unset. */
function envPasswordBudget(env: ReferenceEnv): PasswordBudget | undefined {
  const concurrent = envInteger(env, 'GATEHOUSE_PASSWORD_CHECKS', 1)
  const queued = envInteger(env, 'GATEHOUSE_PASSWORD_QUEUE', 0)
  return concurrent === undefined && queued === undefined ? undefined : new PasswordBudget({ concurrent, queued })
}

/** A JWT key from `name`, or `undefined` when unset; a short key throws. A PEM may have its line breaks written `\n`. */
function envJwtKey(env: ReferenceEnv, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  if (utf8Length(raw) < 32) throw new Error(`${name} must be at least 32 bytes (HS256 wants the hash's size; a Django SECRET_KEY is 50)`)
  return raw.startsWith('-----BEGIN ') ? raw.replace(/\\n/g, '\n') : raw
}

/** The JWT settings of `GATEHOUSE_JWT_SIGNING_KEY`, `GATEHOUSE_JWT_ALGORITHM` and `GATEHOUSE_JWT_VERIFYING_KEY`, or `undefined` without a signing key. */
function envJwt(env: ReferenceEnv): ReferenceConfig['jwt'] {
  const signingKey = envJwtKey(env, 'GATEHOUSE_JWT_SIGNING_KEY')
  if (signingKey === undefined) return undefined
  const verifyingKey = envJwtKey(env, 'GATEHOUSE_JWT_VERIFYING_KEY')
  const rawAlgorithm = env['GATEHOUSE_JWT_ALGORITHM']
  const algorithm: JwtAlgorithm | undefined = rawAlgorithm === undefined || rawAlgorithm === '' ? undefined : JWT_ALGORITHMS.find((a) => a === rawAlgorithm)
  if (rawAlgorithm !== undefined && rawAlgorithm !== '' && algorithm === undefined) throw new Error(`GATEHOUSE_JWT_ALGORITHM must be one of ${JWT_ALGORITHMS.join(', ')}`)
  return { signingKey, ...(algorithm === undefined ? {} : { algorithm }), ...(verifyingKey === undefined ? {} : { verifyingKey }) }
}

/** The OAuth 2.0 settings of `GATEHOUSE_OAUTH_ISSUER`, `_AUDIENCE` and `_INTROSPECTION` (`client_id:client_secret`, split at the first colon), or `undefined` without an issuer. */
function envOAuth2(env: ReferenceEnv): ReferenceConfig['oauth2'] {
  const issuer = env['GATEHOUSE_OAUTH_ISSUER']
  if (issuer === undefined || issuer === '') return undefined
  const audience = (env['GATEHOUSE_OAUTH_AUDIENCE'] ?? '').split(',').map((a) => a.trim()).filter((a) => a !== '')
  if (audience.length === 0) throw new Error('GATEHOUSE_OAUTH_ISSUER needs GATEHOUSE_OAUTH_AUDIENCE (the audiences its tokens must name)')
  const introspection = env['GATEHOUSE_OAUTH_INTROSPECTION'] ?? ''
  const colon = introspection.indexOf(':')
  if (introspection !== '' && colon <= 0) throw new Error('GATEHOUSE_OAUTH_INTROSPECTION must be client_id:client_secret')
  return {
    issuer,
    audience,
    ...(introspection === '' ? {} : { introspection: { clientId: introspection.slice(0, colon), clientSecret: introspection.slice(colon + 1) } }),
  }
}

/** `GATEHOUSE_ALLOWED_HOSTS` as a list (comma-separated), or `undefined` when unset. */
export function envAllowedHosts(env: ReferenceEnv): readonly string[] | undefined {
  const raw = env['GATEHOUSE_ALLOWED_HOSTS']
  return raw === undefined || raw === '' ? undefined : raw.split(',').map((h) => h.trim()).filter((h) => h !== '')
}

/** `GATEHOUSE_SECRET` as a list (comma-separated, for rotation), or `undefined` when unset. */
export function envSecrets(env: ReferenceEnv): readonly string[] | undefined {
  const raw = env['GATEHOUSE_SECRET']
  if (raw === undefined || raw === '') return undefined
  const secrets = raw.split(',').map((s) => s.trim())
  if (secrets.some((s) => utf8Length(s) < 16)) {
    throw new Error('GATEHOUSE_SECRET must hold secrets of at least 16 bytes each (comma-separated to rotate)')
  }
  return secrets
}

/**
 * The serve command's configuration from the environment: `DATABASE_URL`, `GATEHOUSE_DB_TIMEOUT_MS`,
 * `REDIS_URL`, `REDIS_CLUSTER_NODES`, `GATEHOUSE_REDIS_PREFIX`, `GATEHOUSE_REDIS_TIMEOUT_MS`, `GATEHOUSE_NUM_PROXIES`,
 * `GATEHOUSE_SCRYPT_N`, `GATEHOUSE_PASSWORD_CHECKS`, `GATEHOUSE_PASSWORD_QUEUE`, `GATEHOUSE_LOGIN_FAILURES`, `GATEHOUSE_COUNT`, `GATEHOUSE_TOKEN_CACHE_TTL_MS`, `GATEHOUSE_JWT_SIGNING_KEY`, `GATEHOUSE_JWT_ALGORITHM`,
 * `GATEHOUSE_JWT_VERIFYING_KEY`, `GATEHOUSE_OAUTH_ISSUER`, `GATEHOUSE_OAUTH_AUDIENCE` and `GATEHOUSE_OAUTH_INTROSPECTION`. A malformed number or rate throws, so a typo stops start-up instead of silently trusting no proxy.
 */
export function referenceConfigFromEnv(env: ReferenceEnv = process.env): ReferenceConfig {
  return {
    databaseUrl: env['DATABASE_URL'],
    dbTimeoutMs: envInteger(env, 'GATEHOUSE_DB_TIMEOUT_MS', 2),
    redisUrl: env['REDIS_URL'] === '' ? undefined : env['REDIS_URL'],
    redisClusterNodes: envClusterNodes(env),
    redisPrefix: env['GATEHOUSE_REDIS_PREFIX'] === '' ? undefined : env['GATEHOUSE_REDIS_PREFIX'],
    redisTimeoutMs: envInteger(env, 'GATEHOUSE_REDIS_TIMEOUT_MS', 1),
    numProxies: envInteger(env, 'GATEHOUSE_NUM_PROXIES', 0),
    secrets: envSecrets(env),
    scrypt: envScrypt(env),
    passwordBudget: envPasswordBudget(env),
    loginFailures: envRate(env, 'GATEHOUSE_LOGIN_FAILURES'),
    count: envCount(env),
    tokenCacheTtlMs: envInteger(env, 'GATEHOUSE_TOKEN_CACHE_TTL_MS', 1),
    jwt: envJwt(env),
    oauth2: envOAuth2(env),
    allowedHosts: envAllowedHosts(env),
  }
}
