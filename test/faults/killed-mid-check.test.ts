/**
 * A server killed (SIGKILL) between the failed-login reservation and its outcome (issue 27):
 * the reservation lapses by itself, no failure is left behind, and the restarted server
 * accepts the right password. Failed-login throttling at 1/min, so a single phantom failure
 * would mean a 429 for a minute. On a throwaway Redis, on Fastify and Express.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { freshSqlite, type TestDatabase } from '../helpers/databases.js'
import { call } from '../scale/http-client.js'
import { startThrowawayRedis, throwawayServersAvailable, type ThrowawayServer } from './throwaway-servers.js'
import { unavailable } from '../helpers/requirements.js'

const alice = { Authorization: `Basic ${Buffer.from('alice:alice-pass-1').toString('base64')}` }

/** Members of every failed-login key, by kind: `f:` failures, `r:` reservations. */
async function ledger(client: Redis): Promise<{ failures: string[]; reservations: string[] }> {
  const members: string[] = []
  for (const key of await client.keys('gatehouse:login_failures_*')) members.push(...(await client.zrange(key, 0, '-1')))
  return { failures: members.filter((m) => m.startsWith('f:')), reservations: members.filter((m) => m.startsWith('r:')) }
}

describe.skipIf(unavailable('throwaway PostgreSQL and Redis servers', throwawayServersAvailable())).each(['fastify', 'express'])('a server killed mid password check (%s)', (framework) => {
  let redis: ThrowawayServer
  let client: Redis
  let database: TestDatabase
  const instances: Instance[] = []
  const env = (): Record<string, string | undefined> => ({
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    GATEHOUSE_FRAMEWORK: framework,
    GATEHOUSE_LOGIN_FAILURES: '1/min',
    // The library's scrypt cost (not a test's cheap one): a check takes long enough to be killed in.
    GATEHOUSE_SCRYPT_N: undefined,
  })

  beforeAll(async () => {
    redis = await startThrowawayRedis()
    client = new Redis(redis.url)
    database = freshSqlite()
  }, 60_000)

  afterAll(async () => {
    for (const instance of instances) await instance.stop('SIGKILL')
    client?.disconnect()
    await redis?.destroy()
    await database?.drop()
  }, 60_000)

  it('leaves no failure, and the restarted server accepts the right password', async () => {
    const first = await startInstance({ env: env() })
    instances.push(first)
    const inFlight = call(first.baseUrl, '/api/schemes/basic/', { headers: alice, timeoutMs: 30_000 }).then(
      (reply) => reply.status,
      () => 'no answer' as const,
    )
    // Kill the server as soon as the reservation is in Redis, while the password is being checked.
    const deadline = Date.now() + 20_000
    while ((await ledger(client)).reservations.length === 0) {
      if (Date.now() > deadline) throw new Error(`no reservation appeared (answer: ${String(await inFlight)})`)
      await new Promise((ok) => setTimeout(ok, 2))
    }
    await first.stop('SIGKILL')
    const killedAt = Date.now()
    expect(await inFlight).toBe('no answer')
    expect(await ledger(client)).toMatchObject({ failures: [] })

    const second = await startInstance({ env: env() })
    instances.push(second)
    // The reservation's lease (2 s) has ended by now; a left-behind failure would be a 429 for a minute.
    await new Promise((ok) => setTimeout(ok, Math.max(0, killedAt + 2_100 - Date.now())))
    expect((await call(second.baseUrl, '/api/schemes/basic/', { headers: alice })).status).toBe(200)
    expect((await call(second.baseUrl, '/api/schemes/basic/', { headers: alice })).status).toBe(200)
    expect(await ledger(client)).toEqual({ failures: [], reservations: [] })
  }, 120_000)
})
