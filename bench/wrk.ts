/**
 * Runs wrk (Debian's package) against one URL with bob's token and reads its report: shared by
 * `side-by-side.ts` and `scale.ts`.
 */
import { execFileSync } from 'node:child_process'

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
