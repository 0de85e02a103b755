/**
 * The throttle store conformance suites on `ThrottleCounter`, gatehouse's Durable Object: the
 * class runs in workerd (Miniflare), and the store, in this process, reaches each key's object
 * through Miniflare's proxy of the namespace binding, as a Worker's isolate reaches it.
 */
import { Log, LogLevel, Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ThrottleCounter } from 'drf-gatehouse/d1'
import { runReservingThrottleStoreSuite, runThrottleStoreSuite } from 'drf-gatehouse/testing'
import { bundleWorkerNodeCompat } from './worker-bundle.js'

// Every step crosses Miniflare's proxy and a fresh key is a fresh object: the suites' model check takes tens of seconds on a loaded machine.
vi.setConfig({ testTimeout: 240_000 })

let miniflare: Miniflare
let store: ReturnType<typeof ThrottleCounter.store>
type Namespace = Parameters<typeof ThrottleCounter.store>[0]

/** The binding, through Miniflare's proxy (typed by Miniflare without Cloudflare's types, hence the cast). */
async function namespace(): Promise<Namespace> {
  return (await miniflare.getDurableObjectNamespace('THROTTLES')) as unknown as Namespace
}

beforeAll(async () => {
  const { code } = await bundleWorkerNodeCompat('test/edge/throttle-worker.ts')
  miniflare = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'unused' },
    durableObjects: { THROTTLES: 'ThrottleCounter' },
    cf: false,
    log: new Log(LogLevel.WARN),
  })
  store = ThrottleCounter.store(await namespace())
}, 120_000)

afterAll(async () => {
  await miniflare?.dispose()
})

describe('ThrottleCounter (a Durable Object in workerd)', () => {
  runThrottleStoreSuite({ describe, it, create: () => store })
  runReservingThrottleStoreSuite({ describe, it, create: () => store })

  it('answers a malformed step 400, which the store reports as unavailable (503)', async () => {
    const binding = await namespace()
    const stub = binding.get(binding.idFromName('malformed') as never)
    const response = await stub.fetch('https://throttle-counter/', { method: 'POST', body: JSON.stringify({ op: 'hit', now: 'soon' }) })
    expect(response.status).toBe(400)
    await response.arrayBuffer()
    const broken = ThrottleCounter.store({
      idFromName: (name) => binding.idFromName(name),
      get: () => ({ fetch: async () => new Response('no', { status: 500 }) }),
    })
    await expect(broken.hit('k', 1, 1_000, 1)).rejects.toMatchObject({ status: 503, store: 'durable-object' })
  })
})
