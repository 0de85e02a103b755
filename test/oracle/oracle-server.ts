import { afterAll, beforeAll, inject } from 'vitest'
import type { TestDatabase } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { startOracle, type RunningOracle } from './oracle-process.js'

export { freePort, ORACLE_RUN_SH, oracleAvailable, startOracle, type OracleStartOptions, type RunningOracle } from './oracle-process.js'

/** The DRF oracle and gatehouse's reference API, side by side, for one `describe` block. */
export interface OracleAndReference {
  /** Gatehouse's reference API. */
  readonly ours: RunningReference
  /** The oracle's base URL (`http://127.0.0.1:<port>`). */
  readonly oracleBase: string
}

/**
 * The read-only DRF oracle shared by every framework project and database (test/oracle/read-only-oracle.ts,
 * handed out by the broker of vitest's global setup): GET and HEAD only, DRF's answers remembered. Without
 * the broker (another config), a freshly seeded oracle of this block's own.
 */
async function sharedReadOnlyOracle(): Promise<RunningOracle> {
  const broker = inject('simplejwtOracleBroker') as string | undefined
  if (broker === undefined) return startOracle()
  const response = await fetch(`${broker}/drf/read-only`)
  const answer = (await response.json()) as { baseUrl?: string; error?: string }
  if (answer.baseUrl === undefined) throw new Error(`the shared read-only DRF oracle did not start: ${answer.error ?? response.status}`)
  return { baseUrl: answer.baseUrl, close: async () => {} }
}

/**
 * Starts a freshly seeded oracle and the reference API on `database()` before the block's
 * tests, and stops both after them; read `ours` and `oracleBase` inside the tests. `readOnly: true` (for
 * blocks that only GET from DRF) takes the shared read-only oracle instead of starting one.
 */
export function useOracleAndReference(database: () => TestDatabase | Promise<TestDatabase>, { readOnly = false }: { readonly readOnly?: boolean } = {}): OracleAndReference {
  const running: { oracle?: RunningOracle; ours?: RunningReference } = {}
  beforeAll(async () => {
    running.oracle = readOnly ? await sharedReadOnlyOracle() : await startOracle()
    running.ours = await startReference(await database())
  }, 90_000)
  afterAll(async () => {
    await running.oracle?.close()
    await running.ours?.close()
  })
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the oracle and the reference API are not started yet (read them inside a test)')
    return value
  }
  return {
    get ours(): RunningReference {
      return started(running.ours)
    },
    get oracleBase(): string {
      return started(running.oracle).baseUrl
    },
  }
}
