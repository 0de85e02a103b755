/**
 * A throttle budget holds across isolates: two Workers (two V8 isolates that share no memory)
 * in workerd, through Miniflare, their throttles counting in one shared place, as every
 * isolate of a deployed Worker does: one D1 database (`KyselyThrottleStore`), or one
 * Durable Object namespace (`ThrottleCounter`). Requests to both at once, over HTTP, for one
 * client: exactly the budget is allowed in total. (Two Miniflare instances on one D1
 * persistence directory would be two processes locking one SQLite file, which answer
 * SQLITE_BUSY: D1 itself runs one primary per database, which is what this reproduces.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Log, LogLevel, Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openD1 } from 'drf-gatehouse/d1'
import { sql } from 'kysely'
import { KyselyThrottleStore, migrate } from 'drf-gatehouse/kysely'
import { bundleWorkerNodeCompat } from './worker-bundle.js'

const HOSTS = ['left.test', 'right.test'] as const
type Init = { method?: string; headers?: Record<string, string> }

for (const counter of ['D1', 'Durable Object'] as const) {
  describe(`two isolates counting in one ${counter}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-edge-isolates-'))
    let miniflare: Miniflare

    beforeAll(async () => {
      const { code } = await bundleWorkerNodeCompat('test/edge/throttle-worker.ts')
      // Tree-shaken: nothing of Node is left, so the Worker runs without the nodejs_compat flag.
      expect(code).not.toMatch(/\bfrom\s*["'](node:)?(async_hooks|crypto|util|events)["']/)
      miniflare = new Miniflare({
        d1Persist: dir,
        host: '127.0.0.1',
        port: 0,
        cf: false,
        log: new Log(LogLevel.WARN),
        workers: HOSTS.map((host) => ({
          name: host.split('.')[0],
          modules: true,
          script: code,
          compatibilityDate: '2025-09-01',
          compatibilityFlags: [],
          routes: [`${host}/*`],
          d1Databases: { DB: 'gatehouse-isolates' },
          // Both Workers bind the class the first one defines: one object per key for both.
          ...(counter === 'D1' ? {} : { durableObjects: { THROTTLES: { className: 'ThrottleCounter', scriptName: 'left' } } }),
        })),
      })
      await miniflare.ready
      const { db, dialect } = openD1(await miniflare.getD1Database('DB', 'left'))
      await migrate(db, KyselyThrottleStore.migrations(dialect), 'gatehouse_throttle_migrations')
    }, 120_000)

    afterAll(async () => {
      await miniflare?.dispose()
      rmSync(dir, { recursive: true, force: true })
    })

    /** One request to the Worker at `host` (over HTTP to workerd, routed by its URL): status and body. */
    async function call(host: string, path: string, address: string, init: Init = {}): Promise<{ status: number; body: unknown }> {
      const response = await miniflare.dispatchFetch(`http://${host}${path}`, { ...init, headers: { 'cf-connecting-ip': address, ...init.headers } })
      const text = await response.text()
      return { status: response.status, body: text === '' ? null : JSON.parse(text) }
    }

    /** `count` requests at once to each Worker, from the client `address`; the statuses answered. */
    async function burst(path: string, address: string, count: number, init: Init = {}): Promise<number[]> {
      const requests = HOSTS.flatMap((host) => Array.from({ length: count }, async () => (await call(host, path, address, init)).status))
      return Promise.all(requests)
    }

    it('are two isolates: module state is not shared', async () => {
      const [left, right] = await Promise.all(HOSTS.map((host) => call(host, '/isolate/', '192.0.2.1')))
      expect(left?.status).toBe(200)
      expect(right?.status).toBe(200)
      expect(left?.body).not.toEqual(right?.body)
    })

    it('allow exactly the rate (7/min) in total to one client hitting both at once, and 429 the rest', async () => {
      const statuses = await burst('/hit/', '203.0.113.7', 15)
      expect(statuses.filter((s) => s === 200)).toHaveLength(7)
      expect(statuses.filter((s) => s === 429)).toHaveLength(23)
      // The budget stays spent on both.
      expect(await burst('/hit/', '203.0.113.7', 1)).toEqual([429, 429])
      // Another client has its own.
      expect(await burst('/hit/', '203.0.113.8', 1)).toEqual([200, 200])
    })

    it(`kept the counts in the ${counter}`, async () => {
      const { db } = openD1(await miniflare.getD1Database('DB', 'left'))
      const { rows } = await sql<{ n: number }>`select count(*) as n from gatehouse_throttles`.execute(db)
      if (counter === 'D1') expect(Number(rows[0]?.n)).toBeGreaterThan(0)
      else expect(Number(rows[0]?.n)).toBe(0)
    })

    it('check exactly the failed-login budget (3/min) of concurrent wrong passwords to both, then refuse even the right one', async () => {
      const statuses = await burst('/login/', '198.51.100.4', 6, { method: 'POST', headers: { 'x-password': 'wrong' } })
      // Each check reserves its place first, so no more than 3 reach the password check; each of those fails and counts.
      expect(statuses.filter((s) => s === 400)).toHaveLength(3)
      expect(statuses.filter((s) => s === 429)).toHaveLength(9)
      expect(await burst('/login/', '198.51.100.4', 1, { method: 'POST', headers: { 'x-password': 'right' } })).toEqual([429, 429])
      // The owner, from another address, still logs in.
      expect(await burst('/login/', '198.51.100.5', 1, { method: 'POST', headers: { 'x-password': 'right' } })).toEqual([200, 200])
    })
  })
}
