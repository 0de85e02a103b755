/**
 * Runs a bundled worker in workerd, Cloudflare's runtime, through Miniflare (both from npm),
 * without the `nodejs_compat` flag: only Web-standard APIs, as on an edge runtime. The
 * worker answers real HTTP on a loopback port.
 */
import { Log, LogLevel, Miniflare } from 'miniflare'

/** A worker running in workerd. */
export interface RunningWorker {
  /** Where it answers: `http://127.0.0.1:<port>/`. */
  readonly url: URL
  stop(): Promise<void>
}

/** A compatibility date the workerd that Miniflare ships supports (it refuses dates after its build). */
const COMPATIBILITY_DATE = '2025-09-01'

/** Starts `code` (one ES module with a default export) in workerd. */
export async function startWorker(code: string): Promise<RunningWorker> {
  const miniflare = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: COMPATIBILITY_DATE,
    // No compatibility flags: `nodejs_compat` would let `node:` modules and `Buffer` in.
    compatibilityFlags: [],
    host: '127.0.0.1',
    port: 0,
    // A placeholder `request.cf`: Miniflare otherwise fetches a real one from Cloudflare outside vitest.
    cf: false,
    // The worker's uncaught errors and console.error/warn reach the test output: a 500 names its cause.
    log: new Log(LogLevel.WARN),
  })
  const url = await miniflare.ready
  return { url, stop: () => miniflare.dispose() }
}
