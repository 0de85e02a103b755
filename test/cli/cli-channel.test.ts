// The command line reaches a running reference API's token cache on the channel the server
// derives from its Redis prefix (GATEHOUSE_REDIS_PREFIX on both sides, no --channel), for
// staff changes as for deactivation; without Redis a credential change warns that running
// servers were not told, and a command that changed nothing does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { deletePrefix, REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { unavailable } from '../helpers/requirements.js'

const BOB = { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' }
const POLL = { timeout: 10_000, interval: 50 }
const UNTOLD = "gatehouse: warning: running servers were not told (no --redis, REDIS_URL or REDIS_CLUSTER_NODES); a server with a token cache keeps the old answer until the cache's TTL ends\n"

describe.skipIf(unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))('gatehouse command line → a server with its own Redis prefix', () => {
  let server: RunningReference
  let url = ''
  const prefix = uniquePrefix()

  beforeAll(async () => {
    const database = freshSqlite()
    url = database.url
    // A token cache that outlives the test: only an invalidation message changes its answers.
    server = await startReference(database, { redisUrl: REDIS_URL, redisPrefix: prefix, tokenCacheTtlMs: 3_600_000 })
  })
  afterAll(async () => {
    await server?.close()
    if (REDIS_URL !== undefined) await deletePrefix(REDIS_URL, prefix)
  })

  const status = async (path: string): Promise<number> => (await fetch(server.baseUrl + path, { headers: BOB })).status
  const cli = (args: readonly string[]): ReturnType<typeof cliInProcess> =>
    cliInProcess([...args, '--database', url], { REDIS_URL: REDIS_URL ?? '', GATEHOUSE_REDIS_PREFIX: prefix })

  it('grant-staff, revoke-staff and deactivate-user reach the cached token on the derived channel', async () => {
    expect(await status('/api/staff/')).toBe(403)
    expect(await status('/api/staff/')).toBe(403) // now cached
    expect(await cli(['grant-staff', 'bob'])).toEqual({ code: 0, stdout: 'Granted staff status to user bob\n', stderr: '' })
    await expect.poll(() => status('/api/staff/'), POLL).toBe(200)
    expect(await cli(['revoke-staff', 'bob'])).toEqual({ code: 0, stdout: 'Revoked staff status of user bob\n', stderr: '' })
    await expect.poll(() => status('/api/staff/'), POLL).toBe(403)
    expect(await cli(['deactivate-user', 'bob'])).toMatchObject({ code: 0, stderr: '' })
    await expect.poll(() => status('/api/whoami/'), POLL).toBe(401)
    expect(await cli(['activate-user', 'bob'])).toMatchObject({ code: 0, stderr: '' })
    await expect.poll(() => status('/api/whoami/'), POLL).toBe(200)
  })
})

const REDIS_CLUSTER_NODES = process.env['REDIS_CLUSTER_NODES'] || undefined

describe.skipIf(REDIS_CLUSTER_NODES === undefined)('gatehouse command line → a server on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let server: RunningReference
  let url = ''
  const prefix = uniquePrefix()

  beforeAll(async () => {
    const database = freshSqlite()
    url = database.url
    server = await startReference(database, { redisClusterNodes: REDIS_CLUSTER_NODES, redisPrefix: prefix, tokenCacheTtlMs: 3_600_000 })
  })
  afterAll(async () => server?.close())

  const status = async (path: string): Promise<number> => (await fetch(server.baseUrl + path, { headers: BOB })).status

  it('grant-staff and revoke-staff reach the cached token through the cluster', async () => {
    expect(await status('/api/staff/')).toBe(403)
    expect(await status('/api/staff/')).toBe(403) // now cached
    const env = { REDIS_CLUSTER_NODES: REDIS_CLUSTER_NODES ?? '', GATEHOUSE_REDIS_PREFIX: prefix }
    expect(await cliInProcess(['grant-staff', 'bob', '--database', url], env)).toEqual({ code: 0, stdout: 'Granted staff status to user bob\n', stderr: '' })
    await expect.poll(() => status('/api/staff/'), POLL).toBe(200)
    expect(await cliInProcess(['revoke-staff', 'bob', '--database', url], env)).toEqual({ code: 0, stdout: 'Revoked staff status of user bob\n', stderr: '' })
    await expect.poll(() => status('/api/staff/'), POLL).toBe(403)
  })
})

describe('gatehouse command line without Redis', () => {
  const database = freshSqlite()
  afterAll(async () => database.drop())
  const cli = (args: readonly string[], env: Record<string, string> = {}): ReturnType<typeof cliInProcess> =>
    cliInProcess([...args, '--database', database.url], env)

  it('a credential change warns that running servers were not told; a command that changed nothing does not', async () => {
    expect(await cli(['create-user', 'erin'], { GATEHOUSE_PASSWORD: 'erin-pass-1' })).toMatchObject({ code: 0, stderr: '' })
    expect(await cli(['delete-token', 'erin'])).toEqual({ code: 0, stdout: 'User erin had no token\n', stderr: '' })
    expect(await cli(['create-token', 'erin'])).toMatchObject({ code: 0, stderr: '' })
    for (const args of [['grant-staff', 'erin'], ['revoke-staff', 'erin'], ['deactivate-user', 'erin'], ['activate-user', 'erin'], ['create-token', '-r', 'erin'], ['delete-token', 'erin']]) {
      expect(await cli(args), args.join(' ')).toMatchObject({ code: 0, stderr: UNTOLD })
    }
    expect(await cli(['changepassword', 'erin'], { GATEHOUSE_PASSWORD: 'erin-pass-2' })).toMatchObject({ code: 0, stderr: UNTOLD })
    expect(await cli(['grant-staff', 'ghost'])).toEqual({ code: 1, stdout: '', stderr: 'gatehouse: user ghost does not exist\n' })
  })
})
