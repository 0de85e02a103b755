import { createServer, type Server } from 'node:http'
import type { TestProject } from 'vitest/node'
import type { ReadOnlyOracle } from '../read-only-oracle.js'
import type { OracleDatabase, OracleSettings, RunningSimplejwtOracle } from './simplejwt-oracle.js'

/**
 * vitest global setup (root project only): a loopback broker that starts one simplejwt oracle per
 * database and settings the first time a test file asks for it (test/oracle/simplejwt/shared-simplejwt-oracle.ts) and
 * hands the same one to every framework project, so the four projects share one Django per
 * database instead of starting eight. It also hands out one read-only DRF oracle (test/oracle/read-only-oracle.ts)
 * for the suites that only GET from DRF, shared the same way. Nothing starts when no test asks; teardown stops what did.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // Projects that extend the root config inherit this file; only the root's broker is used
  // (the root project's provided values reach every project).
  if (!project.isRootProject()) return undefined
  const started = new Map<string, Promise<RunningSimplejwtOracle>>()
  let readOnly: Promise<ReadOnlyOracle> | undefined
  const server: Server = createServer((req, res) => {
    if (req.url === '/drf/read-only') {
      readOnly ??= import('../read-only-oracle.js').then(({ startReadOnlyOracle }) => startReadOnlyOracle())
      readOnly.then(
        (running) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ baseUrl: running.baseUrl })),
        (error: unknown) => res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: String(error) })),
      )
      return
    }
    const asked = /^\/oracle\/(sqlite|postgres)\/(defaults|rotation)$/.exec(req.url ?? '')
    const database = asked?.[1] as OracleDatabase | undefined
    const settings = (asked?.[2] ?? 'defaults') as OracleSettings
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body))
    }
    if (database === undefined) return answer(404, { error: 'ask for /oracle/<sqlite|postgres>/<defaults|rotation>' })
    let oracle = started.get(`${database} ${settings}`)
    if (oracle === undefined) {
      // Loaded on first use: every run (Bun's and Deno's too) loads this file, few ask.
      oracle = import('./simplejwt-oracle.js').then(({ simplejwtOracleUnavailable, startSimplejwtOracle }) => {
        const unavailable = simplejwtOracleUnavailable(database)
        if (unavailable !== null) throw new Error(unavailable)
        return startSimplejwtOracle(database, settings)
      })
      started.set(`${database} ${settings}`, oracle)
    }
    oracle.then(
      (running) => answer(200, { baseUrl: running.baseUrl }),
      (error: unknown) => answer(500, { error: String(error) }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the simplejwt oracle broker has no port')
  project.provide('simplejwtOracleBroker', `http://127.0.0.1:${address.port}`)
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await Promise.all([...started.values(), ...(readOnly === undefined ? [] : [readOnly])].map((oracle) => oracle.then((running) => running.close(), () => undefined)))
  }
}
