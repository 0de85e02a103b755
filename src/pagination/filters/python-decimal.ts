import { pythonStrip } from '../../core/request/python-strip.js'

/**
 * A number as Python's `Decimal(str)` reads it (Django's `forms.DecimalField`, which
 * django-filter's `NumberFilter` uses): `digits × 10^exponent` with a sign, or a special value.
 */
export type PyDecimal =
  | { readonly kind: 'finite'; readonly negative: boolean; readonly digits: string; readonly exponent: bigint }
  | { readonly kind: 'infinity' | 'nan'; readonly negative: boolean }

const ND = /\p{Nd}/u

/**
 * The value of a Unicode decimal digit (`\p{Nd}`), as Python's `int()` and `Decimal()` read
 * it, or -1. Every Unicode digit block is a run of tens starting at its zero, so the value
 * is the distance from the start of the run, modulo 10 (a bounded scan: runs are ≤ 50 long).
 */
export function digitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30
  if (code < 0x660 || !ND.test(String.fromCodePoint(code))) return -1
  let start = code
  while (ND.test(String.fromCodePoint(start - 1))) start--
  return (code - start) % 10
}

/** The ASCII digits of `text`'s code points, or `null` when one is not a decimal digit. */
function asciiDigits(points: readonly number[]): string | null {
  let out = ''
  for (const p of points) {
    const v = digitValue(p)
    if (v < 0) return null
    out += String.fromCharCode(0x30 + v)
  }
  return out
}

/**
 * Python's `Decimal(text)`: surrounding whitespace and every `_` are dropped (CPython's
 * `_decimal` does), then `[sign] (digits [. [digits]] | . digits) [e [sign] digits]`, or
 * `inf`/`infinity`/`nan[digits]`/`snan[digits]` in any case; any Unicode decimal digit counts.
 * `null` when it does not parse (`InvalidOperation`). One pass over the input.
 */
export function parsePyDecimal(text: string): PyDecimal | null {
  const points: number[] = []
  const stripped = pythonStrip(text)
  for (const ch of stripped) {
    const code = ch.codePointAt(0) ?? 0
    if (code !== 0x5f) points.push(code)
  }
  let i = 0
  let negative = false
  if (points[0] === 0x2b || points[0] === 0x2d) {
    negative = points[0] === 0x2d
    i = 1
  }
  const rest = String.fromCodePoint(...points.slice(i, i + 9)).toLowerCase()
  const restAll = points.length - i
  if (rest === 'inf' && restAll === 3) return { kind: 'infinity', negative }
  if (rest === 'infinity' && restAll === 8) return { kind: 'infinity', negative }
  for (const word of ['nan', 'snan']) {
    if (rest.startsWith(word)) {
      const payload = asciiDigits(points.slice(i + word.length))
      if (payload === null) return null
      return { kind: 'nan', negative }
    }
  }
  let intPart = ''
  let fracPart = ''
  let sawPoint = false
  let exponent = 0n
  for (; i < points.length; i++) {
    const p = points[i] ?? 0
    const v = digitValue(p)
    if (v >= 0) {
      if (sawPoint) fracPart += String.fromCharCode(0x30 + v)
      else intPart += String.fromCharCode(0x30 + v)
    } else if (p === 0x2e && !sawPoint) {
      sawPoint = true
    } else if (p === 0x65 || p === 0x45) {
      if (intPart === '' && fracPart === '') return null
      let j = i + 1
      let expNegative = false
      if (points[j] === 0x2b || points[j] === 0x2d) {
        expNegative = points[j] === 0x2d
        j++
      }
      const expDigits = asciiDigits(points.slice(j))
      if (expDigits === null || expDigits === '') return null
      const significant = expDigits.replace(/^0+/, '')
      // libmpdec refuses exponents past 18 digits (its MAX_EMAX is 999999999999999999).
      if (significant.length > 18) return null
      exponent = BigInt(significant === '' ? '0' : significant) * (expNegative ? -1n : 1n)
      i = points.length
      break
    } else {
      return null
    }
  }
  if (intPart === '' && fracPart === '') return null
  const all = (intPart + fracPart).replace(/^0+/, '')
  return { kind: 'finite', negative, digits: all === '' ? '0' : all, exponent: exponent - BigInt(fracPart.length) }
}

/** The largest value django-filter's `NumberFilter` accepts: the float `1e50`, exactly (`MaxValueValidator(1e50)`). */
const NUMBER_FILTER_MAX = 100000000000000007629769841091887003294964970946560n

/** True when a finite `value` is greater than the float `1e50` (Python compares a Decimal with a float exactly). */
export function exceedsNumberFilterMax(value: PyDecimal): boolean {
  if (value.kind !== 'finite' || value.negative || value.digits === '0') return false
  const magnitude = BigInt(value.digits.length) + value.exponent // digits before the point
  if (magnitude > 51n) return true
  if (magnitude < 51n) return false
  // 51 integer digits: compare the integer part, then any fraction.
  const whole = value.exponent >= 0n ? BigInt(value.digits) * 10n ** value.exponent : BigInt(value.digits.slice(0, 51))
  if (whole !== NUMBER_FILTER_MAX) return whole > NUMBER_FILTER_MAX
  return value.exponent < 0n && /[1-9]/.test(value.digits.slice(51))
}

/**
 * Python's `int(Decimal)` (truncation toward zero), which Django's `IntegerField` applies to
 * a lookup value, clamped to ±(2^53 − 1): every stored integer a JavaScript number holds
 * compares the same with the clamped value as with the exact one.
 */
export function truncateToSafeInteger(value: PyDecimal & { kind: 'finite' }): number {
  const intDigits = BigInt(value.digits.length) + value.exponent
  if (intDigits <= 0n) return 0
  if (intDigits > 16n) return value.negative ? -Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER
  const n = Number(intDigits)
  const text = value.exponent >= 0n ? value.digits + '0'.repeat(Number(value.exponent)) : value.digits.slice(0, n)
  const magnitude = Math.min(Number(text), Number.MAX_SAFE_INTEGER)
  return value.negative && magnitude !== 0 ? -magnitude : magnitude
}

/** Python's `float(Decimal)` (Django's `FloatField`): the nearest double, `±Infinity` past the range. */
export function toFloat(value: PyDecimal & { kind: 'finite' }): number {
  const magnitude = BigInt(value.digits.length) + value.exponent
  if (value.digits === '0') return value.negative ? -0 : 0
  if (magnitude > 400n) return value.negative ? -Infinity : Infinity
  if (magnitude < -400n) return value.negative ? -0 : 0
  return Number(`${value.negative ? '-' : ''}${value.digits}e${value.exponent}`)
}
