import { pythonStrip } from '../../core/request/python-strip.js'
import { parseDjangoInputFormats } from './django-input-formats.js'
import { digitValue } from './python-decimal.js'

/** A date-time Django's form field read: milliseconds since the epoch (UTC) and the microseconds beyond them (0–999). */
export interface DjangoDateTime {
  readonly epochMs: number
  readonly extraMicros: number
}

/** Reads a run of `min`..`max` decimal digits (any Unicode `Nd`, as Python's `\d`) at `i`: `[value, next index]` or `null`. */
function digits(points: readonly number[], i: number, min: number, max: number): [number, number, number] | null {
  let value = 0
  let n = 0
  while (n < max && i + n < points.length) {
    const d = digitValue(points[i + n] ?? 0)
    if (d < 0) break
    value = value * 10 + d
    n++
  }
  return n < min ? null : [value, i + n, n]
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] ?? 0)
}

/**
 * What django-filter's `DateTimeFilter` makes of a value (Django 3.2's
 * `forms.DateTimeField.to_python`): the value stripped, then `parse_datetime`'s
 * `YYYY-M[M]-D[D][T ]h[h]:m[m][:s[s][.,]f{1,6}f{0,6}][Z|±hh[[:]mm]]`, any Unicode digit;
 * a naive time is UTC (`USE_TZ`, `TIME_ZONE='UTC'`). `null` for anything else or an
 * impossible date (`Enter a valid date/time.`); then Django's input formats
 * (django-input-formats.ts: `2024-01-01`, `01/02/2024`, `Jan 02 2024`…). No regex.
 */
export function parseDjangoDateTime(text: string): DjangoDateTime | null {
  const points = Array.from(pythonStrip(text), (ch) => ch.codePointAt(0) ?? 0)
  // A value parse_datetime's pattern takes but whose fields are impossible is refused there
  // (a ValueError); the input formats could read nothing else of it, so trying them is the same.
  return parseIsoDateTime(points) ?? parseDjangoInputFormats(points)
}

function parseIsoDateTime(points: readonly number[]): DjangoDateTime | null {
  const expect = (i: number, ...codes: number[]): boolean => codes.includes(points[i] ?? -1)
  const year = digits(points, 0, 4, 4)
  if (year === null || !expect(year[1], 0x2d)) return null
  const month = digits(points, year[1] + 1, 1, 2)
  if (month === null || !expect(month[1], 0x2d)) return null
  const day = digits(points, month[1] + 1, 1, 2)
  if (day === null || !expect(day[1], 0x54, 0x20)) return null
  const hour = digits(points, day[1] + 1, 1, 2)
  if (hour === null || !expect(hour[1], 0x3a)) return null
  const minute = digits(points, hour[1] + 1, 1, 2)
  if (minute === null) return null
  let i = minute[1]
  let second = 0
  let micros = 0
  if (expect(i, 0x3a)) {
    const s = digits(points, i + 1, 1, 2)
    // `(?::ss…)?` fails as a whole: what follows the minutes is then ':', which nothing else accepts.
    if (s === null) return null
    second = s[0]
    i = s[1]
    if (expect(i, 0x2e, 0x2c)) {
      const f = digits(points, i + 1, 1, 12)
      if (f !== null) {
        // The first six digits are the microseconds (right-padded), the rest ignored.
        const first = digits(points, i + 1, 1, 6)
        if (first === null) return null
        micros = first[0] * 10 ** (6 - first[2])
        i = f[1]
      }
    }
  }
  let offsetMinutes = 0
  if (expect(i, 0x5a)) {
    i++
  } else if (expect(i, 0x2b, 0x2d)) {
    const sign = points[i] === 0x2d ? -1 : 1
    const hh = digits(points, i + 1, 2, 2)
    if (hh === null) return null
    i = hh[1]
    let mm = 0
    const colon = expect(i, 0x3a) ? 1 : 0
    const m = digits(points, i + colon, 2, 2)
    if (m !== null) {
      mm = m[0]
      i = m[1]
    }
    offsetMinutes = sign * (hh[0] * 60 + mm)
    // datetime.timezone refuses offsets of a day or more (a ValueError: invalid).
    if (Math.abs(offsetMinutes) >= 24 * 60) return null
  }
  if (i !== points.length) return null
  const [y, mo, d, h, mi] = [year[0], month[0], day[0], hour[0], minute[0]]
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || second > 59) return null
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(h, mi, second, Math.floor(micros / 1000))
  return { epochMs: date.getTime() - offsetMinutes * 60_000, extraMicros: micros % 1000 }
}
