/**
 * The reference API's context in a Cloudflare Worker: the same stores and schemes as the Node
 * entry's `createGatehouse` call (context.ts), over a D1 binding (`openD1`), with the
 * throttle and failed-login counts in a `ThrottleCounter` Durable Object (one budget for every
 * isolate) and passwords hashed with `pbkdf2Hasher` (scrypt at the default cost would take
 * as much memory as a Worker has). The tables are made and seeded beforehand (at deploy time;
 * in the tests, from Node through Miniflare with `openReferenceContext`), not per isolate.
 */
import type { Kysely } from 'kysely'
import {
  BasicAuthentication, chainTokenStores, createApi, LocalInvalidationBus, LoginFailureThrottle, MemoryTokenCache, pbkdf2Hasher,
  SessionAuthentication, TokenAuthentication,
} from 'drf-gatehouse'
import { openD1, ThrottleCounter } from 'drf-gatehouse/d1'
import { KyselyNamedTokenStore, KyselySessionStore, KyselyTokenStore, KyselyUserStore, type AuthDatabase } from 'drf-gatehouse/kysely'
import { envAllowedHosts, envCount, envInteger, envRate, envSecrets, type ReferenceEnv } from './config.js'
import type { ReferenceRoutesContext } from './context.js'
import type { ReferenceDatabase } from './database.js'
import { storedSecret } from './secret.js'
import { referenceApiSettings } from './settings.js'

/** The Worker's bindings: the D1 database, the Durable Object namespace and the settings (text). */
export interface ReferenceWorkerEnv {
  readonly DB: Parameters<typeof openD1>[0]
  readonly THROTTLES: Parameters<typeof ThrottleCounter.store>[0]
  readonly [name: string]: unknown
}

/** Settings of the Node entry a Worker cannot honour: set, they stop it rather than be ignored. */
const NODE_ONLY = [
  'DATABASE_URL', 'GATEHOUSE_DB_TIMEOUT_MS', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'GATEHOUSE_REDIS_PREFIX', 'GATEHOUSE_REDIS_TIMEOUT_MS',
  'GATEHOUSE_SCRYPT_N', 'GATEHOUSE_PASSWORD_CHECKS', 'GATEHOUSE_PASSWORD_QUEUE', 'GATEHOUSE_JWT_SIGNING_KEY', 'GATEHOUSE_OAUTH_ISSUER',
] as const

/** The text bindings (`[vars]` of wrangler.toml, secrets), as the Node entry reads `process.env`. */
function textBindings(env: ReferenceWorkerEnv): ReferenceEnv {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}

/**
 * Builds the routes' context on `env`'s bindings, reading the settings the Node entry reads
 * (`GATEHOUSE_LOGIN_FAILURES`, `GATEHOUSE_TOKEN_CACHE_TTL_MS`, `GATEHOUSE_NUM_PROXIES`,
 * `GATEHOUSE_ALLOWED_HOSTS`, `GATEHOUSE_SECRET`, `GATEHOUSE_COUNT`) and
 * `GATEHOUSE_PBKDF2_ITERATIONS` (new hashes' cost; Django's 1,000,000 when unset: lower it
 * only in tests, as `GATEHOUSE_SCRYPT_N` on Node).
 *
 * @throws Error for a malformed setting, or one only the Node entry has (Redis, JWT, OAuth 2.0…)
 */
export async function referenceWorkerContext(env: ReferenceWorkerEnv): Promise<ReferenceRoutesContext> {
  const vars = textBindings(env)
  const nodeOnly = NODE_ONLY.filter((name) => (vars[name] ?? '') !== '')
  if (nodeOnly.length > 0) throw new Error(`the reference API's Worker has no use for ${nodeOnly.join(', ')}: unset them`)
  const config = { count: envCount(vars), numProxies: envInteger(vars, 'GATEHOUSE_NUM_PROXIES', 0), allowedHosts: envAllowedHosts(vars) }
  const iterations = envInteger(vars, 'GATEHOUSE_PBKDF2_ITERATIONS', 1)
  const ttlMs = envInteger(vars, 'GATEHOUSE_TOKEN_CACHE_TTL_MS', 1)
  const loginRate = envRate(vars, 'GATEHOUSE_LOGIN_FAILURES')

  const database = openD1<ReferenceDatabase>(env.DB)
  // The stores touch gatehouse's tables only, which ReferenceDatabase holds (as createGatehouse casts).
  const db = database.db as unknown as Kysely<AuthDatabase>
  // Within this isolate: others see a change when their cache entry expires (docs/runtimes.md).
  const invalidation = new LocalInvalidationBus()
  const users = new KyselyUserStore<AuthDatabase>({ db, invalidation, passwordHasher: pbkdf2Hasher(iterations === undefined ? {} : { iterations }) })
  const tokens = new KyselyTokenStore<AuthDatabase>({ db, joinUsers: users.userTable, invalidation })
  const namedTokens = new KyselyNamedTokenStore<AuthDatabase>({ db, joinUsers: users.userTable, invalidation })
  const sessions = new KyselySessionStore({ db })
  const throttleStore = ThrottleCounter.store(env.THROTTLES)
  const cache = ttlMs === undefined ? undefined : new MemoryTokenCache({ ttlMs, maxEntries: 10_000, invalidation })
  const loginFailures = loginRate === undefined ? undefined : new LoginFailureThrottle({ store: throttleStore, rate: loginRate })
  const schemes = {
    token: new TokenAuthentication({ tokens: chainTokenStores(tokens, namedTokens), users, cache }),
    session: new SessionAuthentication({ sessions, users }),
    basic: new BasicAuthentication({ users, realm: 'api', loginFailures }),
  }
  const api = createApi(referenceApiSettings(config, schemes))
  const secrets = envSecrets(vars) ?? [await storedSecret(database.db)]
  // No JWT, OAuth 2.0 or admin pages here: their routes are off, as on Node without their settings.
  return { api, db: database.db, database, users, tokens, namedTokens, sessions, throttleStore, loginFailures, schemes, routes: [], pages: [], jwt: null, oauth2: null, secrets, count: config.count }
}
