import { inject } from 'vitest'
import { startSimplejwtOracle, type OracleDatabase, type OracleSettings, type RunningSimplejwtOracle } from './simplejwt-oracle.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** test/oracle/simplejwt/simplejwt-oracle-setup.ts: where to ask for the shared simplejwt oracles. */
    simplejwtOracleBroker: string
  }
}

/**
 * The simplejwt oracle on `database` with `settings`, shared by the four framework projects: started once by the
 * broker of test/oracle/simplejwt/simplejwt-oracle-setup.ts (vitest's global setup) on first request, stopped
 * when the run ends. Without the broker (another config), this file starts its own and `close()` stops it.
 */
export async function sharedSimplejwtOracle(database: OracleDatabase, settings: OracleSettings = 'defaults'): Promise<RunningSimplejwtOracle> {
  const broker = inject('simplejwtOracleBroker') as string | undefined
  if (broker === undefined) return startSimplejwtOracle(database, settings)
  const response = await fetch(`${broker}/oracle/${database}/${settings}`)
  const answer = (await response.json()) as { baseUrl?: string; error?: string }
  if (answer.baseUrl === undefined) throw new Error(`the simplejwt oracle on ${database} (${settings}) did not start: ${answer.error ?? response.status}`)
  return { baseUrl: answer.baseUrl, close: async () => {} }
}
