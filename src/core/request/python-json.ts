import { latin1Decode } from '../encoding/text.js'
import { hasDigitRunLongerThan } from './python-strip.js'
/**
 * The JSON request parsing of DRF's `JSONParser` on CPython 3.11, so that a
 * malformed body gets the same `400 {"detail": "JSON parse error - …"}` text:
 * the body is decoded with a `codecs` stream reader (strict, a truncated UTF-8
 * sequence at the very end is silently dropped), then `json.loads` runs with
 * DRF's `strict_constant` (NaN and Infinity refused). Positions in messages count
 * code points, as Python's do.
 */

/** A failure with Python's exception text (the part after `JSON parse error - `). */
export class PythonJsonError extends Error {
  override readonly name = 'PythonJsonError'
}

type Codec = 'utf-8' | 'latin-1' | 'ascii'

/** Python's `codecs.lookup` for the charsets it understands here; others fall back to UTF-8. */
function codecOf(charset: string | null): Codec {
  const name = (charset ?? 'utf-8').trim().toLowerCase().replace(/[-\s]/g, '_')
  if (['latin_1', 'latin1', 'latin', 'l1', 'iso_8859_1', 'iso8859_1', 'iso8859', '8859', 'cp819', 'iso_ir_100'].includes(name)) {
    return 'latin-1'
  }
  if (['ascii', 'us_ascii', '646', 'us'].includes(name)) return 'ascii'
  return 'utf-8'
}

function decodeError(codec: Codec, bytes: Uint8Array, start: number, end: number, reason: string): PythonJsonError {
  const where =
    end - start === 1
      ? `byte 0x${(bytes[start] ?? 0).toString(16).padStart(2, '0')} in position ${start}`
      : `bytes in position ${start}-${end - 1}`
  return new PythonJsonError(`'${codec}' codec can't decode ${where}: ${reason}`)
}

/**
 * Python's incremental UTF-8 decoder with `final=False` over the whole body: the
 * first invalid sequence raises; an incomplete sequence at the end is dropped.
 */
function decodeUtf8(bytes: Uint8Array): string {
  let i = 0
  let validEnd = 0
  while (i < bytes.length) {
    const b = bytes[i] ?? 0
    if (b < 0x80) {
      i++
      validEnd = i
      continue
    }
    let need: number
    let lo = 0x80
    let hi = 0xbf
    if (b >= 0xc2 && b <= 0xdf) need = 1
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      if (b === 0xe0) lo = 0xa0
      if (b === 0xed) hi = 0x9f
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      if (b === 0xf0) lo = 0x90
      if (b === 0xf4) hi = 0x8f
    } else throw decodeError('utf-8', bytes, i, i + 1, 'invalid start byte')
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, validEnd))
      const c = bytes[i + k] ?? 0
      const ok = k === 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xbf
      if (!ok) throw decodeError('utf-8', bytes, i, i + k, 'invalid continuation byte')
    }
    i += need + 1
    validEnd = i
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)
}

/** The body text DRF's JSONParser reads, for a request charset (Django ignores unknown ones). */
export function decodeBodyText(bytes: Uint8Array, charset: string | null): string {
  const codec = codecOf(charset)
  if (codec === 'latin-1') return latin1Decode(bytes)
  if (codec === 'ascii') {
    const bad = bytes.findIndex((b) => b >= 0x80)
    if (bad !== -1) {
      const byte = (bytes[bad] ?? 0).toString(16).padStart(2, '0')
      throw new PythonJsonError(`'ascii' codec can't decode byte 0x${byte} in position ${bad}: ordinal not in range(128)`)
    }
    return latin1Decode(bytes)
  }
  return decodeUtf8(bytes)
}

const MAX_DEPTH = 1000
const INT_MAX_STR_DIGITS = 4300
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/** Raised for "not a value here" (Python's StopIteration inside the scanner). */
class StopScan {
  constructor(readonly index: number) {}
}

/**
 * CPython's C scanner (`_json.c`), on UTF-16 code units: each method reads from an
 * index and leaves the index after what it read in `this.end` (no tuple per value).
 */
class Scanner {
  private depth = 0
  /** Where the last value read ends. */
  end = 0

  constructor(private readonly s: string) {}

  /** Raises Python's JSONDecodeError text; positions are converted to code points, as Python counts. */
  fail(message: string, unitPos: number): never {
    let line = 1
    let lastNewline = -1
    let pos = 0
    for (let i = 0; i < unitPos; i++) {
      const code = this.s.charCodeAt(i)
      // The low half of a surrogate pair is the same Python character as the high half.
      if (code >= 0xdc00 && code <= 0xdfff && i > 0 && (this.s.charCodeAt(i - 1) & 0xfc00) === 0xd800) continue
      if (code === 0x0a) {
        line++
        lastNewline = pos
      }
      pos++
    }
    throw new PythonJsonError(`${message}: line ${line} column ${pos - lastNewline} (char ${pos})`)
  }

  skipWhitespace(idx: number): number {
    const s = this.s
    let i = idx
    for (;;) {
      const code = s.charCodeAt(i)
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return i
      i++
    }
  }

  /** `scan_once`: one value at `idx`. */
  scan(idx: number): unknown {
    const s = this.s
    if (idx >= s.length) throw new StopScan(idx)
    switch (s.charCodeAt(idx)) {
      case 0x22: // "
        return this.string(idx + 1)
      case 0x7b: // {
        return this.nested(idx, true)
      case 0x5b: // [
        return this.nested(idx, false)
      case 0x6e: // n
        if (s.startsWith('null', idx)) return this.literal(null, idx + 4)
        break
      case 0x74: // t
        if (s.startsWith('true', idx)) return this.literal(true, idx + 4)
        break
      case 0x66: // f
        if (s.startsWith('false', idx)) return this.literal(false, idx + 5)
        break
      case 0x4e: // N
        if (s.startsWith('NaN', idx)) this.constant('NaN')
        break
      case 0x49: // I
        if (s.startsWith('Infinity', idx)) this.constant('Infinity')
        break
      case 0x2d: // -
        if (s.startsWith('-Infinity', idx)) this.constant('-Infinity')
        break
    }
    return this.number(idx)
  }

  private literal<T>(value: T, end: number): T {
    this.end = end
    return value
  }

  /** DRF's `strict_constant`. */
  private constant(name: string): never {
    throw new PythonJsonError(`Out of range float values are not JSON compliant: '${name}'`)
  }

  private nested(idx: number, isObject: boolean): unknown {
    if (++this.depth > MAX_DEPTH) {
      // CPython raises RecursionError (a 500 in DRF); a 400 here.
      throw new PythonJsonError(
        `maximum recursion depth exceeded while decoding a JSON ${isObject ? 'object' : 'array'} from a unicode string`,
      )
    }
    const value = isObject ? this.object(idx + 1) : this.array(idx + 1)
    this.depth--
    return value
  }

  private isDigit(i: number): boolean {
    const code = this.s.charCodeAt(i)
    return code >= 0x30 && code <= 0x39
  }

  private number(start: number): number {
    const s = this.s
    const last = s.length - 1
    let idx = start
    if (s.charCodeAt(idx) === 0x2d) {
      idx++
      if (idx > last) throw new StopScan(start)
    }
    const first = s.charCodeAt(idx)
    if (first >= 0x31 && first <= 0x39) {
      idx++
      while (idx <= last && this.isDigit(idx)) idx++
    } else if (first === 0x30) idx++
    else throw new StopScan(start)
    let isFloat = false
    if (idx < last && s.charCodeAt(idx) === 0x2e && this.isDigit(idx + 1)) {
      isFloat = true
      idx += 2
      while (idx <= last && this.isDigit(idx)) idx++
    }
    const e = s.charCodeAt(idx)
    if (idx < last && (e === 0x65 || e === 0x45)) {
      const eStart = idx
      idx++
      const sign = s.charCodeAt(idx)
      if (idx < last && (sign === 0x2d || sign === 0x2b)) idx++
      while (idx <= last && this.isDigit(idx)) idx++
      if (this.isDigit(idx - 1)) isFloat = true
      else idx = eStart
    }
    const text = s.slice(start, idx)
    if (!isFloat) {
      const digits = text.length - (text.startsWith('-') ? 1 : 0)
      if (digits > INT_MAX_STR_DIGITS) {
        throw new PythonJsonError(
          `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
        )
      }
    }
    this.end = idx
    return Number(text)
  }

  private hex4(from: number, errorAt: number): number {
    let value = 0
    for (let k = 0; k < 4; k++) {
      const code = this.s.charCodeAt(from + k)
      let digit: number
      if (code >= 0x30 && code <= 0x39) digit = code - 0x30
      else if (code >= 0x61 && code <= 0x66) digit = code - 0x61 + 10
      else if (code >= 0x41 && code <= 0x46) digit = code - 0x41 + 10
      else this.fail('Invalid \\uXXXX escape', errorAt)
      value = (value << 4) | digit
    }
    return value
  }

  /** `scanstring`, strict: `endStart` is the index after the opening quote. */
  string(endStart: number): string {
    const s = this.s
    const begin = endStart - 1
    const len = s.length
    let end = endStart
    let out = ''
    for (;;) {
      let next = end
      let code = 0
      for (; next < len; next++) {
        code = s.charCodeAt(next)
        if (code === 0x22 || code === 0x5c) break
        if (code <= 0x1f) this.fail('Invalid control character at', next)
      }
      if (next >= len) this.fail('Unterminated string starting at', begin)
      out += s.slice(end, next)
      next++
      if (code === 0x22) {
        this.end = next
        return out
      }
      if (next === len) this.fail('Unterminated string starting at', begin)
      const escape = s[next] ?? ''
      if (escape !== 'u') {
        end = next + 1
        const decoded = ESCAPES[escape]
        if (decoded === undefined) this.fail('Invalid \\escape', end - 2)
        out += decoded
        continue
      }
      next++
      end = next + 4
      if (end >= len) this.fail('Invalid \\uXXXX escape', next - 1)
      let unit = this.hex4(next, end - 5)
      next = end
      if (unit >= 0xd800 && unit <= 0xdbff && end + 6 < len && s.charCodeAt(next) === 0x5c && s.charCodeAt(next + 1) === 0x75) {
        const low = this.hex4(next + 2, end + 1)
        if (low >= 0xdc00 && low <= 0xdfff) {
          unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
          end += 6
        }
      }
      out += unit >= 0x10000 ? String.fromCodePoint(unit) : String.fromCharCode(unit)
    }
  }

  private object(start: number): Record<string, unknown> {
    const s = this.s
    const result: Record<string, unknown> = {}
    let idx = this.skipWhitespace(start)
    if (idx >= s.length || s.charCodeAt(idx) !== 0x7d) {
      for (;;) {
        if (idx >= s.length || s.charCodeAt(idx) !== 0x22) this.fail('Expecting property name enclosed in double quotes', idx)
        const key = this.string(idx + 1)
        idx = this.skipWhitespace(this.end)
        if (idx >= s.length || s.charCodeAt(idx) !== 0x3a) this.fail("Expecting ':' delimiter", idx)
        idx = this.skipWhitespace(idx + 1)
        const value = this.scan(idx)
        // defineProperty for "__proto__": it is data, as in Python's dict.
        if (key === '__proto__') Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true })
        else result[key] = value
        idx = this.skipWhitespace(this.end)
        if (idx < s.length && s.charCodeAt(idx) === 0x7d) break
        if (idx >= s.length || s.charCodeAt(idx) !== 0x2c) this.fail("Expecting ',' delimiter", idx)
        idx = this.skipWhitespace(idx + 1)
      }
    }
    this.end = idx + 1
    return result
  }

  private array(start: number): unknown[] {
    const s = this.s
    const result: unknown[] = []
    let idx = this.skipWhitespace(start)
    if (idx >= s.length || s.charCodeAt(idx) !== 0x5d) {
      for (;;) {
        result.push(this.scan(idx))
        idx = this.skipWhitespace(this.end)
        if (idx < s.length && s.charCodeAt(idx) === 0x5d) break
        if (idx >= s.length || s.charCodeAt(idx) !== 0x2c) this.fail("Expecting ',' delimiter", idx)
        idx = this.skipWhitespace(idx + 1)
      }
    }
    this.end = idx + 1
    return result
  }
}

/** `json.loads(text)` with DRF's strict constants; throws `PythonJsonError` with Python's message. */
export function parsePythonJson(text: string): unknown {
  // Fast path: where V8 accepts, CPython accepts the same value, except for a leading
  // BOM (V8 refuses it too) and integers over Python's 4300-digit limit.
  if (!hasDigitRunLongerThan(text, 4300)) {
    try {
      return JSON.parse(text) as unknown
    } catch {
      // Fall through to the exact scanner for Python's message.
    }
  }
  const scanner = new Scanner(text)
  if (text.startsWith('\ufeff')) scanner.fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0)
  const start = scanner.skipWhitespace(0)
  let value: unknown
  try {
    value = scanner.scan(start)
  } catch (error) {
    if (error instanceof StopScan) scanner.fail('Expecting value', error.index)
    throw error
  }
  const end = scanner.skipWhitespace(scanner.end)
  if (end !== text.length) scanner.fail('Extra data', end)
  return value
}
