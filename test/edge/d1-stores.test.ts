/**
 * The store conformance suites on Cloudflare D1 through `openD1`: a real D1 binding in workerd
 * (Miniflare, from npm), reached from this process through Miniflare's binding proxy, so every
 * statement runs in workerd's D1 (SQLite) as in a deployed Worker.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Miniflare } from 'miniflare'
import { afterAll, describe } from 'vitest'
import { openD1 } from 'drf-gatehouse/d1'
import { runEdgeStoreSuites } from './store-suites.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-edge-d1-'))
let miniflare: Miniflare | undefined

afterAll(async () => {
  await miniflare?.dispose()
  rmSync(dir, { recursive: true, force: true })
})

describe('Kysely stores on D1 (workerd through Miniflare)', () => {
  runEdgeStoreSuites(async () => {
    miniflare = new Miniflare({
      modules: true,
      script: 'export default { fetch: () => new Response(null, { status: 404 }) }',
      compatibilityDate: '2025-09-01',
      d1Databases: { DB: 'gatehouse-test' },
      d1Persist: dir,
      cf: false,
    })
    return openD1(await miniflare.getD1Database('DB'))
  })
})
