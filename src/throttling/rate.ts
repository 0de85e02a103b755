import { ConfigurationError } from '../core/errors.js'
import { redactConfigValue } from '../core/redact.js'

/** A parsed rate: at most `limit` requests in any sliding window of `windowMs`. */
export interface Rate {
  readonly limit: number
  readonly windowMs: number
}

/** Only the first letter of the period counts (DRF): `s`, `m`, `h`, `d`. */
const PERIODS: Readonly<Record<string, number>> = Object.freeze({
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
})

/**
 * Parses DRF's `"<count>/<period>"` rate string: `'5/sec'`, `'100/min'`,
 * `'3/hour'`, `'1000/day'`.
 *
 * As in DRF, only the first character of the period is read, so `'2/mon'` is
 * 2 per *minute* and `'1/decade'` is 1 per *day*. Multi-unit periods such as
 * `'5/10m'`, unknown periods, and counts that are not plain non-negative
 * integers throw a `ConfigurationError` (`ERR_INVALID_RATE`). DRF fails on the
 * same strings, but only when the first request arrives (a 500); gatehouse
 * parses rates when a throttle is constructed, so a bad rate stops start-up.
 *
 * @example
 * parseRate('100/min') // { limit: 100, windowMs: 60_000 }
 */
export function parseRate(rate: string): Rate {
  const invalid = (why: string): ConfigurationError =>
    new ConfigurationError('ERR_INVALID_RATE', `invalid throttle rate ${JSON.stringify(typeof rate === 'string' ? redactConfigValue(rate) : rate)}: ${why}`)
  if (typeof rate !== 'string') throw invalid('expected a string such as "100/min"')
  const parts = rate.split('/')
  if (parts.length !== 2) throw invalid('expected "<count>/<period>", for example "100/min"')
  const [count = '', period = ''] = parts
  if (!/^[0-9]+$/.test(count) || !Number.isSafeInteger(Number(count))) {
    throw invalid('the count must be a non-negative integer')
  }
  const windowMs = PERIODS[period.charAt(0)]
  if (windowMs === undefined) {
    throw invalid('the period must start with s, m, h or d (multi-unit periods such as "10m" are not supported)')
  }
  return Object.freeze({ limit: Number(count), windowMs })
}
