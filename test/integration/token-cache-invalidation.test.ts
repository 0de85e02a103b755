/**
 * The token cache across instances: two independent stacks (each its own Kysely connection
 * to one database, its own Redis client and RedisInvalidationBus, its own MemoryTokenCache)
 * where B holds a token in its cache and A regenerates it, deletes it, deactivates its user
 * or changes their password: B's next authentications reflect it within a bounded wait.
 * Then the same in one process over a LocalInvalidationBus (no Redis), where it is immediate.
 * Statements are counted on B (a Kysely `log` hook), so "served from the cache" is measured,
 * not assumed; a control stack whose changes are not published shows the cache would
 * otherwise answer stale.
 */
import { Kysely } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MemoryTokenCache } from '../../src/authentication/memory-token-cache.js'
import { TokenAuthentication } from '../../src/authentication/token-authentication.js'
import { AuthenticationFailed } from '../../src/core/errors.js'
import type { UserId } from '../../src/core/user.js'
import { createDialect, parseDatabaseUrl } from '../../src/kysely/database.js'
import { KyselyTokenStore } from '../../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import { authMigrations, migrate } from '../../src/kysely/migrations.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js'
import { RedisInvalidationBus } from '../../src/redis/redis-invalidation-bus.js'
import type { InvalidationBus } from '../../src/stores/invalidation-bus.js'
import { LocalInvalidationBus } from '../../src/stores/local-invalidation-bus.js'
import { buildRequest } from '../helpers/build-request.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const SCRYPT = { N: 1024, r: 8, p: 1 }
/** Far longer than any test: an entry that goes away was invalidated, not expired. */
const TTL_MS = 10 * 60_000
/** The bounded wait for a message to cross Redis. */
const POLL = { timeout: 5_000, interval: 20 }

/** One application instance: its own connection, stores, cache and scheme. */
interface Stack {
  readonly users: KyselyUserStore
  readonly tokens: KyselyTokenStore
  readonly cache: MemoryTokenCache
  readonly scheme: TokenAuthentication
  /** SQL statements this stack has run. */
  readonly statements: string[]
  close(): Promise<void>
}

async function openStack(url: string, bus: InvalidationBus, publish = true): Promise<Stack> {
  const statements: string[] = []
  const db = new Kysely<AuthDatabase>({ dialect: await createDialect(parseDatabaseUrl(url)), log: (event) => void statements.push(event.query.sql) })
  const invalidation = publish ? bus : undefined
  const users = new KyselyUserStore({ db, scrypt: SCRYPT, invalidation })
  const tokens = new KyselyTokenStore({ db, joinUsers: users.userTable, invalidation })
  const cache = new MemoryTokenCache({ ttlMs: TTL_MS, invalidation: bus })
  return {
    users,
    tokens,
    cache,
    scheme: new TokenAuthentication({ tokens, users, cache }),
    statements,
    close: async () => {
      cache.close()
      await db.destroy()
    },
  }
}

/** Authenticates `Token <key>` on `stack`: the username or refusal, and the statements it cost. */
async function authenticate(stack: Stack, key: string): Promise<{ outcome: string; statements: number }> {
  const before = stack.statements.length
  let outcome: string
  try {
    outcome = (await stack.scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${key}` } })))?.user.username ?? 'not attempted'
  } catch (error) {
    outcome = error instanceof AuthenticationFailed ? String(error.detail) : `unexpected: ${String(error)}`
  }
  return { outcome, statements: stack.statements.length - before }
}

/** A fresh user with a token, cached on `b` (checked: the second authentication costs no statement). */
async function cachedOn(a: Stack, b: Stack, name: string): Promise<{ id: UserId; key: string; username: string }> {
  const username = `${name}-${Math.random().toString(36).slice(2, 8)}`
  const user = await a.users.create({ username, password: 'first-pass-1' })
  const { key } = await a.tokens.getOrCreate(user.id)
  expect(await authenticate(b, key)).toEqual({ outcome: username, statements: 1 })
  expect(await authenticate(b, key)).toEqual({ outcome: username, statements: 0 })
  return { id: user.id, key, username }
}

/** The four changes, and what B must answer for the old key afterwards. */
const CHANGES: readonly { readonly name: string; change(a: Stack, id: UserId): Promise<unknown>; readonly expected: (username: string) => string }[] = [
  { name: 'regenerates the token', change: (a, id) => a.tokens.regenerate(id), expected: () => 'Invalid token.' },
  { name: 'deletes the token', change: (a, id) => a.tokens.delete(id), expected: () => 'Invalid token.' },
  { name: 'deactivates the user', change: (a, id) => a.users.setActive(id, false), expected: () => 'User inactive or deleted.' },
  // DRF keeps a token across a password change; the cache must still let go of the entry (the next request reads the database).
  { name: "changes the user's password", change: (a, id) => a.users.setPassword(id, 'second-pass-2'), expected: (username) => username },
]

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend) || unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))(`token cache invalidation across two instances (${backend.name} + Redis)`, () => {
    let target: TestDatabase
    const redisClients: RedisClient[] = []
    const buses: RedisInvalidationBus[] = []
    let a: Stack
    let b: Stack
    let deaf: Stack
    const channel = `${uniquePrefix()}auth-invalidation`

    beforeAll(async () => {
      target = await backend.create()
      const setup = new Kysely<AuthDatabase>({ dialect: await createDialect(parseDatabaseUrl(target.url)) })
      await migrate(setup, authMigrations(parseDatabaseUrl(target.url).dialect))
      await setup.destroy()
      for (let i = 0; i < 3; i++) {
        const redis = createRedisClient(REDIS_URL ?? '', { onError: () => {} })
        redisClients.push(redis)
        buses.push(new RedisInvalidationBus({ redis, channel }))
      }
      a = await openStack(target.url, buses[0]!)
      b = await openStack(target.url, buses[1]!)
      // A third instance whose stores do not publish: its changes are what B would miss without the bus.
      deaf = await openStack(target.url, buses[2]!, false)
    })
    beforeEach(async () => {
      await expect.poll(() => buses.every((bus) => bus.listening), POLL).toBe(true)
    })
    afterAll(async () => {
      for (const stack of [a, b, deaf]) await stack?.close()
      for (const bus of buses) await bus.close()
      for (const redis of redisClients) await redis.close()
      await target?.drop()
    })

    for (const { name, change, expected } of CHANGES) {
      it(`A ${name}: B's next authentication with the old key reads the database again and reflects it`, async () => {
        const { id, key, username } = await cachedOn(a, b, name.split(' ')[0] ?? 'user')
        await change(a, id)
        // Until the message arrives B answers from its cache (0 statements); then from the database (1).
        await expect.poll(async () => authenticate(b, key), POLL).toEqual({ outcome: expected(username), statements: 1 })
      })
    }

    it('A reactivates a user B holds as inactive: B lets them in again', async () => {
      const { id, key, username } = await cachedOn(a, b, 'back')
      await a.users.setActive(id, false)
      await expect.poll(async () => (await authenticate(b, key)).outcome, POLL).toBe('User inactive or deleted.')
      expect(await authenticate(b, key)).toEqual({ outcome: 'User inactive or deleted.', statements: 0 })
      await a.users.setActive(id, true)
      await expect.poll(async () => (await authenticate(b, key)).outcome, POLL).toBe(username)
    })

    it('control: a change nobody publishes leaves B answering from its cache (what the bus prevents)', async () => {
      const stale = await cachedOn(a, b, 'control')
      const witness = await cachedOn(a, b, 'witness')
      await deaf.tokens.regenerate(stale.id)
      expect(await deaf.tokens.findByKey(stale.key)).toBeNull()
      // A barrier: once B has dropped the witness, a message sent before it would have arrived too.
      await buses[0]!.publish(witness.id)
      await expect.poll(async () => (await authenticate(b, witness.key)).statements, POLL).toBe(1)
      expect(await authenticate(b, stale.key)).toEqual({ outcome: stale.username, statements: 0 })
      // Told, B lets go.
      await buses[2]!.publish(stale.id)
      await expect.poll(async () => (await authenticate(b, stale.key)).outcome, POLL).toBe('Invalid token.')
    })
  })

  describe.skipIf(backendUnavailable(backend))(`token cache invalidation in one process, without Redis (${backend.name})`, () => {
    let target: TestDatabase
    let a: Stack
    let b: Stack

    beforeAll(async () => {
      target = await backend.create()
      const setup = new Kysely<AuthDatabase>({ dialect: await createDialect(parseDatabaseUrl(target.url)) })
      await migrate(setup, authMigrations(parseDatabaseUrl(target.url).dialect))
      await setup.destroy()
      const bus = new LocalInvalidationBus()
      a = await openStack(target.url, bus)
      b = await openStack(target.url, bus)
    })
    afterAll(async () => {
      for (const stack of [a, b]) await stack?.close()
      await target?.drop()
    })

    for (const { name, change, expected } of CHANGES) {
      it(`the stores ${name.replace(/s /, ' ')}: the cache reflects it on the very next request`, async () => {
        const { id, key, username } = await cachedOn(a, b, name.split(' ')[0] ?? 'user')
        await change(a, id)
        expect(await authenticate(b, key)).toEqual({ outcome: expected(username), statements: 1 })
      })
    }
  })
}
