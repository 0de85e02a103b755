/**
 * Runs wrk (Debian's package) against one URL with bob's token and reads its report: shared by
 * `side-by-side.ts` and `scale.ts`. `load()` falls back to autocannon (in this process) where
 * wrk is not installed, and can send a fixed number of requests instead of running for a time.
 */
import { execFileSync } from 'node:child_process'
import autocannon from 'autocannon'

/** The reference API seed's token of bob. */
export const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

/** What one wrk run measured. */
export interface WrkResult {
  readonly requests: number
  readonly rps: number
  readonly p50ms: number
  readonly p99ms: number
  /** Responses other than 2xx/3xx. */
  readonly non2xx: number
  /** Socket errors: connect, read, write and timeouts. */
  readonly errors: number
}

/** A wrk latency such as `1.23ms`, `850.00us` or `1.02s`, in ms; NaN when unreadable. */
export function latencyMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text)
  if (match === null) return Number.NaN
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

/** `wrk -t2 -c<connections> -d<duration>s --latency` with `Authorization: Token <bob>`. */
export function wrk(url: string, connections: number, durationSeconds: number): WrkResult {
  const out = execFileSync(
    'wrk',
    ['-t2', `-c${connections}`, `-d${durationSeconds}s`, '--latency', '--timeout', '10s', '-H', `Authorization: Token ${BOB_TOKEN}`, '-H', 'Accept: application/json', url],
    { encoding: 'utf8' },
  )
  const num = (re: RegExp): number => Number(re.exec(out)?.[1] ?? 0)
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50ms: latencyMs(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    p99ms: latencyMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    errors: [...out.matchAll(/(connect|read|write|timeout) (\d+)/g)].reduce((sum, m) => sum + Number(m[2]), 0),
  }
}

/** True when the `wrk` binary is on PATH. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    return (error as { code?: unknown }).code !== 'ENOENT'
  }
}

/** How long one load run lasts: seconds, or a fixed number of requests (autocannon only). */
export type LoadLength = { readonly seconds: number } | { readonly requests: number }

/**
 * One load run against `url` with bob's token: wrk for a time when it is installed and no
 * request count is asked for, else autocannon (which runs in this process: its CPU is not the
 * server's, but it shares the machine's cores, so its req/s are lower than wrk's).
 */
export async function load(url: string, connections: number, length: LoadLength): Promise<WrkResult & { readonly tool: 'wrk' | 'autocannon' }> {
  if ('seconds' in length && hasWrk()) return { ...wrk(url, connections, length.seconds), tool: 'wrk' }
  const started = performance.now()
  const result = await autocannon({
    url,
    connections,
    ...('seconds' in length ? { duration: length.seconds } : { amount: length.requests }),
    timeout: 10,
    headers: { Authorization: `Token ${BOB_TOKEN}`, Accept: 'application/json' },
  })
  // result.duration is whole seconds: time the run here.
  const seconds = (performance.now() - started) / 1000
  const requests = result.requests.total
  return {
    requests,
    rps: requests / Math.max(0.001, seconds),
    p50ms: result.latency.p50,
    p99ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    tool: 'autocannon',
  }
}
