import { isPythonSpace } from '../../core/request/python-strip.js'
import { digitValue } from './python-decimal.js'

// Django 3.2's `DATETIME_INPUT_FORMATS`, then `DATE_INPUT_FORMATS` (USE_L10N off): what
// `forms.DateTimeField` tries with `datetime.strptime` once `parse_datetime` found nothing.
const FORMATS = [
  '%Y-%m-%d %H:%M:%S', '%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M',
  '%m/%d/%Y %H:%M:%S', '%m/%d/%Y %H:%M:%S.%f', '%m/%d/%Y %H:%M',
  '%m/%d/%y %H:%M:%S', '%m/%d/%y %H:%M:%S.%f', '%m/%d/%y %H:%M',
  '%Y-%m-%d', '%m/%d/%Y', '%m/%d/%y', '%b %d %Y', '%b %d, %Y', '%d %b %Y', '%d %b, %Y', '%B %d %Y', '%B %d, %Y', '%d %B %Y', '%d %B, %Y',
]
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']

type Fields = { Y?: number; y?: number; m?: number; d?: number; H?: number; M?: number; S?: number; f?: number; b?: number; B?: number }

/** A digit as Python's `\d` reads it (any Unicode Nd), or -1. */
const anyDigit = (points: readonly number[], i: number): number => (i < points.length ? digitValue(points[i] ?? 0) : -1)
/** An ASCII digit in `[lo-hi]`, as a character class of the pattern, or -1. */
function asciiDigit(points: readonly number[], i: number, lo: number, hi: number): number {
  const c = points[i] ?? -1
  return c >= 0x30 + lo && c <= 0x30 + hi ? c - 0x30 : -1
}

/** `_strptime`'s alternatives for a directive at `i`, in the regex's order: [value, end]. */
function candidates(directive: string, points: readonly number[], i: number): [number, number][] {
  const out: [number, number][] = []
  // `first` a literal class, then Python's `\d`: `3[01]`, `[12]\d`, …
  const pair = (lo: number, hi: number, lo2: number, hi2: number, anySecond: boolean): void => {
    const a = asciiDigit(points, i, lo, hi)
    const b = anySecond ? anyDigit(points, i + 1) : asciiDigit(points, i + 1, lo2, hi2)
    if (a >= 0 && b >= 0) out.push([a * 10 + b, i + 2])
  }
  const one = (lo: number, hi: number, any: boolean): void => {
    const a = any ? anyDigit(points, i) : asciiDigit(points, i, lo, hi)
    if (a >= 0) out.push([a, i + 1])
  }
  switch (directive) {
    case 'd': pair(3, 3, 0, 1, false); pair(1, 2, 0, 0, true); pair(0, 0, 1, 9, false); one(1, 9, false)
      if (points[i] === 0x20) { const a = asciiDigit(points, i + 1, 1, 9); if (a >= 0) out.push([a, i + 2]) }
      break
    case 'm': pair(1, 1, 0, 2, false); pair(0, 0, 1, 9, false); one(1, 9, false); break
    case 'H': pair(2, 2, 0, 3, false); pair(0, 1, 0, 0, true); one(0, 0, true); break
    case 'M': pair(0, 5, 0, 0, true); one(0, 0, true); break
    case 'S': pair(6, 6, 0, 1, false); pair(0, 5, 0, 0, true); one(0, 0, true); break
    case 'y': { const a = anyDigit(points, i), b = anyDigit(points, i + 1); if (a >= 0 && b >= 0) out.push([a * 10 + b, i + 2]); break }
    case 'Y': { let v = 0; for (let k = 0; k < 4; k++) { const c = anyDigit(points, i + k); if (c < 0) return out; v = v * 10 + c } out.push([v, i + 4]); break }
    case 'f': { let n = 0; while (n < 6 && asciiDigit(points, i + n, 0, 9) >= 0) n++
      for (let len = n; len >= 1; len--) { let v = 0; for (let k = 0; k < len; k++) v = v * 10 + (points[i + k] ?? 0x30) - 0x30; out.push([v * 10 ** (6 - len), i + len]) }
      break }
    case 'b': case 'B':
      MONTHS.forEach((name, index) => { const word = directive === 'b' ? name.slice(0, 3) : name; if (matchesFolded(points, i, word)) out.push([index + 1, i + word.length]) })
      break
  }
  return out
}

/**
 * `word` (lower-case ASCII) at `i`, in any case. The IGNORECASE pattern also takes `ſ` for s
 * and `İ`/`ı` for i, but `_strptime` then looks the lower-cased name up and finds none of them.
 */
function matchesFolded(points: readonly number[], i: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    const c = points[i + k] ?? -1
    const w = word.charCodeAt(k)
    if (c === w || c === w - 32) continue
    return false
  }
  return true
}

function strptime(format: string, points: readonly number[]): { epochMs: number; extraMicros: number } | null {
  const fields: Fields = {}
  // The regex's first match (re.match: not anchored at the end).
  const end = walk(format, 0, points, 0, fields)
  // "unconverted data remains": strptime's ValueError, and the next format is tried.
  if (end !== points.length) return null
  const year = fields.Y ?? (fields.y === undefined ? 1900 : fields.y <= 68 ? 2000 + fields.y : 1900 + fields.y)
  const month = fields.m ?? fields.b ?? fields.B ?? 1
  const day = fields.d ?? 1
  const [hour, minute, second, micros] = [fields.H ?? 0, fields.M ?? 0, fields.S ?? 0, fields.f ?? 0]
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
  if (day < 1 || day > days || second > 59) return null
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, Math.floor(micros / 1000))
  return { epochMs: date.getTime(), extraMicros: micros % 1000 }
}

/** Depth-first in the regex's order; on success `path` holds the values of the matching branch. */
function walk(format: string, f: number, points: readonly number[], i: number, path: Fields): number | null {
  if (f === format.length) return i
  const ch = format[f] ?? ''
  if (ch === '%') {
    const directive = format[f + 1] ?? ''
    for (const [value, end] of candidates(directive, points, i)) {
      const found = walk(format, f + 2, points, end, path)
      if (found !== null) {
        ;(path as Record<string, number>)[directive] = value
        return found
      }
    }
    return null
  }
  if (ch === ' ') {
    let end = i
    while (end < points.length && isPythonSpace(points[end] ?? 0)) end++
    return end === i ? null : walk(format, f + 1, points, end, path)
  }
  return points[i] === ch.charCodeAt(0) ? walk(format, f + 1, points, i + 1, path) : null
}

/**
 * What Django 3.2's `forms.DateTimeField` makes of a stripped value `parse_datetime` did not
 * read: the first of its input formats `datetime.strptime` accepts, naive, so UTC here
 * (`USE_TZ`, `TIME_ZONE='UTC'`); `null` when none does (`Enter a valid date/time.`). Each
 * format is a fixed sequence of bounded alternatives: linear in the value.
 */
export function parseDjangoInputFormats(points: readonly number[]): { epochMs: number; extraMicros: number } | null {
  for (const format of FORMATS) {
    const parsed = strptime(format, points)
    if (parsed !== null) return parsed
  }
  return null
}
