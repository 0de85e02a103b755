/**
 * The reference API's Worker entry (examples/reference-api/worker.ts) in workerd, on D1, with
 * what the conformance suite (vitest.workerd.config.ts) does not reach: its throttles, which
 * count in the `ThrottleCounter` Durable Object, not in D1 and not in the isolate, answering
 * as on Node (test/reference/throttled-endpoint.test.ts, login-failures.test.ts).
 */
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { referenceWorkerContext, type ReferenceWorkerEnv } from '../../examples/reference-api/worker-context.js'
import { freshD1 } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'

interface Reply {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: unknown
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text()
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text === '' ? null : JSON.parse(text) }
}

/** A token obtain at `path` for `username`, from the client `address` (CF-Connecting-IP, as Cloudflare sets it). */
async function obtain(server: RunningReference, path: string, username: string, password: string, address = '192.0.2.10'): Promise<Reply> {
  return reply(
    await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': address },
      body: JSON.stringify({ username, password }),
    }),
  )
}

function basic(server: RunningReference, username: string, password: string, address = '192.0.2.10'): Promise<Reply> {
  const authorization = `Basic ${btoa(`${username}:${password}`)}`
  return fetch(`${server.baseUrl}/api/private/`, { headers: { authorization, 'cf-connecting-ip': address } }).then(reply)
}

function expectThrottled(result: Reply): void {
  expect(result.status).toBe(429)
  const wait = Number(result.retryAfter)
  expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true)
  expect(result.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} ${wait === 1 ? 'second' : 'seconds'}.` })
}

/** The tables of the Worker's D1 database. */
async function tables(server: RunningReference): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(server.ref.db)
  return rows.map((row) => row.name)
}

describe('the reference API as a Worker (workerd, D1, a Durable Object)', () => {
  const servers: RunningReference[] = []
  afterAll(async () => {
    for (const server of servers) await server.close()
  })

  it('POST /api/auth/token/throttled/: 5 a minute per client address, then 429 with Retry-After; the plain obtain is not throttled', async () => {
    const server = await startReference(freshD1(), {}, { framework: 'workerd' })
    servers.push(server)
    const path = '/api/auth/token/throttled/'
    for (let i = 0; i < 5; i++) {
      const result = await obtain(server, path, 'bob', 'bob-pass-2')
      expect(result.status).toBe(200)
      expect(result.body).toEqual({ token: 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' })
    }
    expectThrottled(await obtain(server, path, 'bob', 'bob-pass-2'))
    // Keyed by address even with valid credentials of another user, as on Node.
    expectThrottled(await obtain(server, path, 'alice', 'alice-pass-1'))
    expect((await obtain(server, path, 'bob', 'bob-pass-2', '192.0.2.11')).status).toBe(200)
    expect((await obtain(server, '/api/auth/token/', 'bob', 'bob-pass-2')).status).toBe(200)
    // Counted in the Durable Object: D1 has no throttle table at all.
    expect(await tables(server)).toContain('gatehouse_users')
    expect(await tables(server)).not.toContain('gatehouse_throttles')
  })

  it('GATEHOUSE_LOGIN_FAILURES: Basic and token obtain share one budget per (username, address); past it even the right password is 429', async () => {
    const server = await startReference(freshD1(), { loginFailures: '2/min' }, { framework: 'workerd' })
    servers.push(server)
    // Right passwords do not count.
    for (let i = 0; i < 3; i++) expect((await basic(server, 'alice', 'alice-pass-1')).status).toBe(200)
    expect((await basic(server, 'alice', 'wrong')).status).toBe(401)
    expect((await obtain(server, '/api/auth/token/', 'alice', 'wrong')).status).toBe(400)
    expectThrottled(await basic(server, 'alice', 'alice-pass-1'))
    expectThrottled(await obtain(server, '/api/auth/token/', 'alice', 'alice-pass-1'))
    // The owner, from another address, still gets in.
    expect((await basic(server, 'alice', 'alice-pass-1', '192.0.2.99')).status).toBe(200)
  })
})

describe("the Worker's settings", () => {
  // A setting the Worker cannot honour would otherwise be dropped in silence: OAuth 2.0 or JWT routes
  // the deployer meant to serve, or a Redis that was to share throttles, missing without a word.
  it.each(['GATEHOUSE_OAUTH_ISSUER', 'GATEHOUSE_JWT_SIGNING_KEY', 'REDIS_URL', 'DATABASE_URL', 'GATEHOUSE_SCRYPT_N'])(
    '%s (the Node entry\'s only) stops the Worker, named, before a binding is touched',
    async (name) => {
      const env = { DB: undefined, THROTTLES: undefined, [name]: 'set' } as unknown as ReferenceWorkerEnv
      await expect(referenceWorkerContext(env)).rejects.toThrow(`the reference API's Worker has no use for ${name}: unset them`)
    },
  )
})
