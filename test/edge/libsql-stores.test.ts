/** The store conformance suites on libSQL (`@libsql/kysely-libsql`, a `file:` database) through `openLibsql`. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { openLibsql } from 'drf-gatehouse/libsql'
import { runEdgeStoreSuites } from './store-suites.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-edge-libsql-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Kysely stores on libSQL (file:)', () => {
  runEdgeStoreSuites(async () => openLibsql({ url: `file:${join(dir, 'auth.db')}` }))
})
