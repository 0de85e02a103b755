// The command line's credential changes (delete-token, deactivate-user, activate-user,
// changepassword, create-token -r), spawned as real processes (in-process on PostgreSQL): with REDIS_URL set they
// tell a running server's token cache through Redis, so the server stops (or starts)
// accepting the token without waiting for the cache's TTL; without Redis they still work.
import { cliInProcess } from '../helpers/cli-in-process.js'
import { runCli } from '../helpers/cli-process.js'
import type { CommandResult } from '../helpers/run-command.js'
import { Kysely } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MemoryTokenCache } from '../../src/authentication/memory-token-cache.js'
import { TokenAuthentication } from '../../src/authentication/token-authentication.js'
import { AuthenticationFailed } from '../../src/core/errors.js'
import { createDialect, parseDatabaseUrl } from '../../src/kysely/database.js'
import { KyselyTokenStore } from '../../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import type { AuthDatabase } from '../../src/kysely/schema.js'
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js'
import { RedisInvalidationBus } from '../../src/redis/redis-invalidation-bus.js'
import { buildRequest } from '../helpers/build-request.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { closedPort, REDIS_URL, uniquePrefix } from '../helpers/redis.js'
import { backendUnavailable, unavailable } from '../helpers/requirements.js'

const POLL = { timeout: 5_000, interval: 20 }

type Run = CommandResult

interface RunEnv {
  readonly REDIS_URL: string
  readonly GATEHOUSE_PASSWORD?: string
}

/** Runs `gatehouse <args>` as a real process with exactly the given DATABASE_URL / REDIS_URL ('' = unset). */
function spawned(args: readonly string[], env: RunEnv): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env }
  delete childEnv['DATABASE_URL']
  // Only REDIS_URL names a Redis here (CI also exports a cluster's REDIS_CLUSTER_NODES).
  delete childEnv['REDIS_CLUSTER_NODES']
  return runCli(args, { env: childEnv })
}

/** The same in this process, `env` its whole environment. */
function inProcess(args: readonly string[], env: RunEnv): Promise<Run> {
  return cliInProcess(args, { ...env })
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend) || unavailable('Redis (REDIS_URL)', REDIS_URL !== undefined))(`gatehouse command line tells running servers (${backend.name} + Redis)`, () => {
    // Spawned on SQLite; in this process on PostgreSQL (it still publishes through Redis; the command line's code is the same on both).
    const gatehouse = backend.name === 'sqlite' ? spawned : inProcess
    let target: TestDatabase
    let db: Kysely<AuthDatabase>
    let redis: RedisClient
    let bus: RedisInvalidationBus
    let cache: MemoryTokenCache
    let scheme: TokenAuthentication
    let key: string
    const statements: string[] = []
    const channel = `${uniquePrefix()}auth-invalidation`
    const env = { REDIS_URL: REDIS_URL ?? '' }

    /** The running server's view of `Token <key>`: outcome and statements spent. */
    async function server(token = key): Promise<{ outcome: string; statements: number }> {
      const before = statements.length
      let outcome: string
      try {
        outcome = (await scheme.authenticate(buildRequest({ headers: { Authorization: `Token ${token}` } })))?.user.username ?? 'not attempted'
      } catch (error) {
        outcome = error instanceof AuthenticationFailed ? String(error.detail) : `unexpected: ${String(error)}`
      }
      return { outcome, statements: statements.length - before }
    }

    beforeAll(async () => {
      target = await backend.create()
      expect(await gatehouse(['create-user', 'dana', '--database', target.url], { ...env, GATEHOUSE_PASSWORD: 'dana-pass-1' })).toMatchObject({ code: 0 })
      const created = await gatehouse(['create-token', 'dana', '--database', target.url], env)
      key = /token ([0-9a-f]{40})/.exec(created.stdout)?.[1] ?? ''
      expect(key).toHaveLength(40)
      db = new Kysely<AuthDatabase>({ dialect: await createDialect(parseDatabaseUrl(target.url)), log: (event) => void statements.push(event.query.sql) })
      redis = createRedisClient(REDIS_URL ?? '', { onError: () => {} })
      bus = new RedisInvalidationBus({ redis, channel })
      const users = new KyselyUserStore({ db, invalidation: bus })
      cache = new MemoryTokenCache({ ttlMs: 10 * 60_000, invalidation: bus })
      scheme = new TokenAuthentication({ tokens: new KyselyTokenStore({ db, joinUsers: users.userTable, invalidation: bus }), users, cache })
    })
    beforeEach(async () => {
      await expect.poll(() => bus.listening, POLL).toBe(true)
    })
    afterAll(async () => {
      cache?.close()
      await bus?.close()
      await redis?.close()
      await db?.destroy()
      await target?.drop()
    })

    /** The server holds the current key in its cache: the second authentication costs nothing. */
    async function cached(outcome: string): Promise<void> {
      await server()
      expect(await server()).toEqual({ outcome, statements: 0 })
    }

    it('deactivate-user, then activate-user: the server refuses, then accepts the cached token', async () => {
      await cached('dana')
      expect(await gatehouse(['deactivate-user', 'dana', '--database', target.url, '--channel', channel], env)).toEqual({ code: 0, stdout: 'Deactivated user dana\n', stderr: '' })
      await expect.poll(() => server(), POLL).toEqual({ outcome: 'User inactive or deleted.', statements: 1 })
      await cached('User inactive or deleted.')
      expect(await gatehouse(['activate-user', 'dana', '--database', target.url, '--channel', channel], env)).toEqual({ code: 0, stdout: 'Activated user dana\n', stderr: '' })
      await expect.poll(() => server(), POLL).toEqual({ outcome: 'dana', statements: 1 })
    })

    it('changepassword: the server drops the entry (the token itself still works, as in DRF)', async () => {
      await cached('dana')
      expect(await gatehouse(['changepassword', 'dana', '--database', target.url, '--channel', channel], { ...env, GATEHOUSE_PASSWORD: 'dana-pass-2' })).toMatchObject({ code: 0, stderr: '' })
      await expect.poll(() => server(), POLL).toEqual({ outcome: 'dana', statements: 1 })
    })

    it('create-token -r: the old key stops working on the server', async () => {
      await cached('dana')
      const reset = await gatehouse(['create-token', '-r', 'dana', '--database', target.url, '--channel', channel], env)
      const fresh = /token ([0-9a-f]{40})/.exec(reset.stdout)?.[1] ?? ''
      expect(fresh).not.toBe(key)
      await expect.poll(() => server(), POLL).toEqual({ outcome: 'Invalid token.', statements: 1 })
      key = fresh
    })

    it('delete-token: the key stops working on the server; a second delete says there is none', async () => {
      await cached('dana')
      expect(await gatehouse(['delete-token', 'dana', '--database', target.url, '--channel', channel], env)).toEqual({ code: 0, stdout: 'Deleted the token of user dana\n', stderr: '' })
      await expect.poll(() => server(), POLL).toEqual({ outcome: 'Invalid token.', statements: 1 })
      expect(await gatehouse(['delete-token', 'dana', '--database', target.url, '--channel', channel], env)).toEqual({ code: 0, stdout: 'User dana had no token\n', stderr: '' })
    })

    it('an unknown user is an error, and nothing is published', async () => {
      for (const command of ['delete-token', 'deactivate-user', 'activate-user']) {
        expect(await gatehouse([command, 'ghost', '--database', target.url, '--channel', channel], env)).toEqual({ code: 1, stdout: '', stderr: 'gatehouse: user ghost does not exist\n' })
      }
    })
  })
}

describe('gatehouse command line without a reachable Redis', () => {
  let target: TestDatabase
  afterAll(async () => target?.drop())

  it('without REDIS_URL: the changes are made, with a warning; with an unreachable Redis: made, with a warning', async () => {
    target = await BACKENDS[0]!.create()
    const none = { REDIS_URL: '' }
    expect(await spawned(['create-user', 'erin', '--database', target.url], { ...none, GATEHOUSE_PASSWORD: 'erin-pass-1' })).toMatchObject({ code: 0 })
    expect(await spawned(['create-token', 'erin', '--database', target.url], none)).toMatchObject({ code: 0, stderr: '' })
    expect(await spawned(['deactivate-user', 'erin', '--database', target.url], none)).toEqual({
      code: 0,
      stdout: 'Deactivated user erin\n',
      stderr: "gatehouse: warning: running servers were not told (no --redis, REDIS_URL or REDIS_CLUSTER_NODES); a server with a token cache keeps the old answer until the cache's TTL ends\n",
    })
    const unreachable = { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` }
    const run = await spawned(['delete-token', 'erin', '--database', target.url], unreachable)
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted the token of user erin\n' })
    expect(run.stderr).toMatch(/^gatehouse: warning: running servers were not told through Redis \(.+\); their cached token authentications end within their cache's TTL\n$/)
    expect(run.stderr).toContain('ECONNREFUSED')
    // Plain get-or-create changes nothing a server holds: it never touches Redis.
    expect(await spawned(['create-token', 'erin', '--database', target.url], unreachable)).toMatchObject({ code: 0, stderr: '' })
    const db = new Kysely<AuthDatabase>({ dialect: await createDialect(parseDatabaseUrl(target.url)) })
    try {
      const users = new KyselyUserStore({ db })
      expect((await users.findByUsername('erin'))?.isActive).toBe(false)
    } finally {
      await db.destroy()
    }
  })
})
