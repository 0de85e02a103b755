import { bytesToBase64 } from '../core/encoding/base64.js'
import { latin1Decode, latin1Encode } from '../core/encoding/text.js'
import { lenientBase64Decode } from '../core/encoding/python-base64.js'
import type { KeyValue } from './paginator.js'
import { parsePositiveInt, parsePythonInt, parseQuery, quotePlus } from './query-params.js'

/**
 * A cursor as Django REST Framework's `CursorPagination` writes it (drf-behaviors §14.3):
 * `base64("o=<offset>&r=1&p=<position>")`. The position is Python's `str()` of the first
 * ordering field's value on the boundary row.
 */
export interface DrfCursor {
  /** Rows to skip after the position (already clamped to the offset cutoff). */
  readonly offset: number
  readonly reverse: boolean
  /** The first ordering field's value as text, or `null` for none. */
  readonly position: string | null
}

/** DRF's `offset_cutoff`: a larger `o` is clamped to it. */
export const DRF_OFFSET_CUTOFF = 1000

/** Longest text tried as a DRF cursor (DRF has no limit; real cursors are short). */
const MAX_DRF_CURSOR_LENGTH = 4096

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false
  return true
}

/**
 * DRF's `decode_cursor`: ASCII text, Python's lenient base64, ASCII bytes, `parse_qs`
 * (blank values kept, first value of a repeated key), `o` a non-negative Python integer
 * clamped to `offsetCutoff`, `r` any Python integer (nonzero: reverse), `p` taken as is.
 * `null` wherever DRF answers `404 Invalid cursor`. Never throws.
 */
export function decodeDrfCursor(text: string, offsetCutoff: number = DRF_OFFSET_CUTOFF): DrfCursor | null {
  if (text.length > MAX_DRF_CURSOR_LENGTH || !isAscii(text)) return null
  const bytes = lenientBase64Decode(text)
  if (bytes === null) return null
  for (const byte of bytes) if (byte > 0x7f) return null
  // parseQuery drops one leading "?", which Python's parse_qs keeps as part of the key.
  const query = parseQuery(`?${latin1Decode(bytes)}`)
  const first = (key: string): string | undefined => query.get(key)?.[0]
  const rawOffset = first('o')
  let offset = 0
  if (rawOffset !== undefined) {
    const value = parsePositiveInt(rawOffset, false, offsetCutoff > 0 ? offsetCutoff : null)
    if (value === null) return null
    offset = Number(value)
  }
  const rawReverse = first('r')
  let reverse = false
  if (rawReverse !== undefined) {
    const value = parsePythonInt(rawReverse)
    if (value === null) return null
    reverse = value !== 0n
  }
  const position = first('p') ?? null
  return { offset, reverse, position }
}

/**
 * DRF's `encode_cursor` (for tests and migration tooling): `o`, `r`, `p` in that order,
 * each left out when 0 / forward / null, form-escaped, then standard base64.
 */
export function encodeDrfCursor(cursor: DrfCursor): string {
  const pairs: string[] = []
  if (cursor.offset !== 0) pairs.push(`o=${cursor.offset}`)
  if (cursor.reverse) pairs.push('r=1')
  if (cursor.position !== null) pairs.push(`p=${quotePlus(cursor.position)}`)
  return bytesToBase64(latin1Encode(pairs.join('&')))
}

const PY_INT = /^-?[0-9]+$/
const PY_FLOAT = /^-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/
const PY_DATETIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?(?:([+-])([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?$/

/**
 * Python's `str()` of an aware datetime (`2024-01-01 00:07:00+00:00`, microseconds only
 * when nonzero) as a `Date`; a naive one (no offset) is read as UTC. Sub-millisecond
 * digits are truncated (a `Date` holds milliseconds). `null` for an impossible date.
 */
function parsePythonDatetime(text: string): Date | null {
  const m = PY_DATETIME.exec(text)
  if (m === null) return null
  const [, y, mo, d, h, mi, s, frac = '', sign, oh = '00', om = '00', os = '00'] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Number(frac.padEnd(3, '0').slice(0, 3)))
  const check = new Date(utc)
  // Date.UTC maps years 0-99 to 1900-1999 and rolls 2024-02-30 over: both are rejected.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null
  const offsetSeconds = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60 + Number(os))
  if (Math.abs(offsetSeconds) >= 86_400) return null
  return new Date(utc - offsetSeconds * 1000)
}

/**
 * The values a DRF position string may stand for, most specific first: an integer or a
 * float (`str(int)`, `str(float)`, `str(Decimal)`), a boolean (`True` / `False`), a
 * datetime, and always the text itself last. The paginator takes the first one the
 * source accepts for the field's type, so `"abc"` for an integer column fits none.
 */
export function drfPositionCandidates(position: string): KeyValue[] {
  const out: KeyValue[] = []
  if (position.length <= 64) {
    if (PY_INT.test(position) || PY_FLOAT.test(position)) {
      const value = Number(position)
      if (Number.isFinite(value) && (!PY_INT.test(position) || Number.isSafeInteger(value))) out.push(value)
    }
    if (position === 'True' || position === 'False') out.push(position === 'True')
    const date = parsePythonDatetime(position)
    if (date !== null) out.push(date)
  }
  out.push(position)
  return out
}

/** What a database column holds, as far as converting a DRF position goes. */
export type DrfPositionKind = 'integer' | 'number' | 'boolean' | 'timestamp' | 'text'

// Django 3.2's datetime_re and date_re (`re.match`, `\d` is any Unicode digit, `$` also
// matches before a final newline). Bounded quantifiers only: no backtracking blow-up.
const DJANGO_DATETIME =
  /^(\p{Nd}{4})-(\p{Nd}{1,2})-(\p{Nd}{1,2})[T ](\p{Nd}{1,2}):(\p{Nd}{1,2})(?::(\p{Nd}{1,2})(?:[.,](\p{Nd}{1,6})\p{Nd}{0,6})?)?(Z|[+-]\p{Nd}{2}(?::?\p{Nd}{2})?)?\n?$/u
const DJANGO_DATE = /^(\p{Nd}{4})-(\p{Nd}{1,2})-(\p{Nd}{1,2})\n?$/u

/** Python's `int()` of a regex group of Unicode digits. */
const digits = (text: string | undefined): number => (text === undefined ? 0 : Number(parsePythonInt(text) ?? 0n))

/**
 * Python's `datetime(...)` from Django's parts, in UTC (a naive value is UTC: `USE_TZ` with
 * the UTC time zone); `null` where Python raises `ValueError`. Milliseconds kept (a `Date`).
 */
function pythonDatetime(parts: readonly number[], microsecond: string | undefined, offsetMinutes: number): Date | null {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = parts
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
  // timezone(timedelta(minutes=offset)) refuses ±24 hours and more.
  if (Math.abs(offsetMinutes) >= 24 * 60) return null
  const utc = new Date(0)
  utc.setUTCFullYear(year, month - 1, day)
  utc.setUTCHours(hour, minute, second, Math.floor(digits((microsecond ?? '').padEnd(6, '0')) / 1000))
  if (utc.getUTCFullYear() !== year || utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== day) return null
  return new Date(utc.getTime() - offsetMinutes * 60_000)
}

/** Django 3.2's `DateTimeField.to_python` of a string: `parse_datetime`, then `parse_date` (midnight). */
export function djangoDatetime(text: string): Date | null {
  const m = DJANGO_DATETIME.exec(text)
  if (m !== null) {
    const [, y, mo, d, h, mi, s, micro, tz] = m
    let offset = 0
    if (tz !== undefined && tz !== 'Z') {
      const signless = tz.slice(1)
      offset = 60 * digits(signless.slice(0, 2)) + (tz.length > 3 ? digits(tz.slice(-2)) : 0)
      if (tz.startsWith('-')) offset = -offset
    }
    return pythonDatetime([y, mo, d, h, mi, s].map(digits), micro, offset)
  }
  const date = DJANGO_DATE.exec(text)
  if (date === null) return null
  const [, y, mo, d] = date
  return pythonDatetime([y, mo, d].map(digits), undefined, 0)
}

const DJANGO_TRUE = new Set(['t', 'True', '1'])
const DJANGO_FALSE = new Set(['f', 'False', '0'])

/**
 * The value Django's model field of `kind` makes of a DRF cursor position (what the queryset
 * filter compares with): an integer field's Python `int()` (signs, `_`, Unicode digits,
 * surrounding whitespace; any size: compare it, do not bind it blindly), a float field's
 * `float()`, a boolean field's `to_python`, Django 3.2's datetime parsing, text as is.
 * `null` where Django raises (DRF answers 500; gatehouse keeps its `Invalid cursor` 404).
 */
export function drfPositionAs(text: string, kind: DrfPositionKind): KeyValue | null {
  if (text.length > 4300) return null
  switch (kind) {
    case 'integer': {
      const value = parsePythonInt(text)
      return value === null ? null : Number(value)
    }
    case 'number': {
      const integer = parsePythonInt(text)
      if (integer !== null) return Number(integer)
      const trimmed = text.trim()
      if (!PY_FLOAT.test(trimmed)) return null
      const value = Number(trimmed)
      return Number.isFinite(value) ? value : null
    }
    case 'boolean':
      return DJANGO_TRUE.has(text) ? true : DJANGO_FALSE.has(text) ? false : null
    case 'timestamp':
      return djangoDatetime(text)
    case 'text':
      return text
  }
}
