/**
 * The benchmark's three servers give the same answer byte for byte (ports aside): the
 * reference API, the hand-written baseline (`bench/hand-written-server.ts`) and the plain
 * Fastify + @fastify/auth + Kysely stack (`bench/plain-stack-server.ts`), on every page of
 * the benchmark's list and both databases, so side-by-side compares equal work.
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { backendUnavailable } from '../helpers/requirements.js'

const BENCH = join(import.meta.dirname, '..', '..', 'bench')
/** Starting a server bundles it with tsx first: minutes on a busy machine. */
const START_TIMEOUT_MS = 240_000
const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

async function body(instance: Instance, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${instance.baseUrl}${path}`, { headers: { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' } })
  return { status: response.status, body: (await response.text()).replaceAll(`:${instance.port}/`, ':<port>/') }
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`the benchmark's servers on ${backend.name}`, () => {
    let database: TestDatabase | undefined
    const instances: Instance[] = []
    afterAll(async () => {
      await Promise.all(instances.map((i) => i.stop()))
      await database?.drop()
    }, 60_000)

    it('answer every page of GET /api/articles/ alike, byte for byte', async () => {
      database = await backend.create()
      const env = { DATABASE_URL: database.url, REDIS_URL: undefined }
      // The reference API migrates and seeds first.
      const reference = await startInstance({ env: { ...env, GATEHOUSE_FRAMEWORK: 'fastify' }, startTimeoutMs: START_TIMEOUT_MS })
      instances.push(reference)
      const [hand, plain] = await Promise.all([
        startInstance({ env, script: [join(BENCH, 'hand-written-server.ts')], startTimeoutMs: START_TIMEOUT_MS }),
        startInstance({ env, script: [join(BENCH, 'plain-stack-server.ts')], startTimeoutMs: START_TIMEOUT_MS }),
      ])
      instances.push(hand, plain)
      for (const path of ['/api/articles/', '/api/articles/?page=2', '/api/articles/?page=3', '/api/articles/?page=14']) {
        const [a, b, c] = await Promise.all([body(reference, path), body(hand, path), body(plain, path)])
        expect(a.status, path).toBe(200)
        expect(b, path).toEqual(a)
        expect(c, path).toEqual(a)
      }
    }, 900_000)
  })
}
