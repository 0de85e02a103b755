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
  if (codec === 'latin-1') return Buffer.from(bytes).toString('latin1')
  if (codec === 'ascii') {
    const bad = bytes.findIndex((b) => b >= 0x80)
    if (bad !== -1) {
      const byte = (bytes[bad] ?? 0).toString(16).padStart(2, '0')
      throw new PythonJsonError(`'ascii' codec can't decode byte 0x${byte} in position ${bad}: ordinal not in range(128)`)
    }
    return Buffer.from(bytes).toString('latin1')
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

class Scanner {
  private depth = 0

  constructor(private readonly s: readonly string[]) {}

  fail(message: string, pos: number): never {
    let line = 1
    let lastNewline = -1
    for (let i = 0; i < pos; i++) {
      if (this.s[i] === '\n') {
        line++
        lastNewline = i
      }
    }
    throw new PythonJsonError(`${message}: line ${line} column ${pos - lastNewline} (char ${pos})`)
  }

  skipWhitespace(idx: number): number {
    let i = idx
    while (i < this.s.length && (this.s[i] === ' ' || this.s[i] === '\t' || this.s[i] === '\n' || this.s[i] === '\r')) i++
    return i
  }

  private startsWith(idx: number, word: string): boolean {
    for (let k = 0; k < word.length; k++) if (this.s[idx + k] !== word[k]) return false
    return true
  }

  /** `scan_once`: one value at `idx`; returns it and the index after it. */
  scan(idx: number): [unknown, number] {
    const s = this.s
    if (idx >= s.length) throw new StopScan(idx)
    const c = s[idx]
    if (c === '"') return this.string(idx + 1)
    if (c === '{') return this.nested(() => this.object(idx + 1), 'object')
    if (c === '[') return this.nested(() => this.array(idx + 1), 'array')
    if (c === 'n' && this.startsWith(idx, 'null')) return [null, idx + 4]
    if (c === 't' && this.startsWith(idx, 'true')) return [true, idx + 4]
    if (c === 'f' && this.startsWith(idx, 'false')) return [false, idx + 5]
    for (const constant of ['NaN', 'Infinity', '-Infinity']) {
      if (this.startsWith(idx, constant)) {
        // DRF's strict_constant.
        throw new PythonJsonError(`Out of range float values are not JSON compliant: '${constant}'`)
      }
    }
    return this.number(idx)
  }

  private nested<T>(parse: () => [T, number], kind: string): [T, number] {
    if (++this.depth > MAX_DEPTH) {
      // CPython raises RecursionError (a 500 in DRF); a 400 here.
      throw new PythonJsonError(`maximum recursion depth exceeded while decoding a JSON ${kind} from a unicode string`)
    }
    try {
      return parse()
    } finally {
      this.depth--
    }
  }

  private number(start: number): [number, number] {
    const s = this.s
    const digit = (i: number): boolean => {
      const ch = s[i]
      return ch !== undefined && ch >= '0' && ch <= '9'
    }
    const end = s.length - 1
    let idx = start
    if (s[idx] === '-') {
      idx++
      if (idx > end) throw new StopScan(start)
    }
    if (s[idx] !== undefined && (s[idx] ?? '') >= '1' && (s[idx] ?? '') <= '9') {
      idx++
      while (idx <= end && digit(idx)) idx++
    } else if (s[idx] === '0') idx++
    else throw new StopScan(start)
    let isFloat = false
    if (idx < end && s[idx] === '.' && digit(idx + 1)) {
      isFloat = true
      idx += 2
      while (idx <= end && digit(idx)) idx++
    }
    if (idx < end && (s[idx] === 'e' || s[idx] === 'E')) {
      const eStart = idx
      idx++
      if (idx < end && (s[idx] === '-' || s[idx] === '+')) idx++
      while (idx <= end && digit(idx)) idx++
      if (digit(idx - 1)) isFloat = true
      else idx = eStart
    }
    const text = s.slice(start, idx).join('')
    if (!isFloat) {
      const digits = text.replace('-', '').length
      if (digits > INT_MAX_STR_DIGITS) {
        throw new PythonJsonError(
          `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
        )
      }
    }
    return [Number(text), idx]
  }

  private hex4(from: number, errorAt: number): number {
    let value = 0
    for (let k = 0; k < 4; k++) {
      const d = parseInt(this.s[from + k] ?? 'x', 16)
      if (Number.isNaN(d) || !/^[0-9a-fA-F]$/.test(this.s[from + k] ?? '')) this.fail('Invalid \\uXXXX escape', errorAt)
      value = (value << 4) | d
    }
    return value
  }

  /** `scanstring`, strict: `end` is the index after the opening quote. */
  string(endStart: number): [string, number] {
    const s = this.s
    const begin = endStart - 1
    const len = s.length
    let end = endStart
    let out = ''
    for (;;) {
      let next = end
      let c: string | undefined
      for (; next < len; next++) {
        c = s[next]
        if (c === '"' || c === '\\') break
        if ((c?.codePointAt(0) ?? 0) <= 0x1f) this.fail('Invalid control character at', next)
      }
      if (next >= len) this.fail('Unterminated string starting at', begin)
      out += s.slice(end, next).join('')
      next++
      if (c === '"') return [out, next]
      if (next === len) this.fail('Unterminated string starting at', begin)
      const e = s[next] ?? ''
      if (e !== 'u') {
        end = next + 1
        const decoded = ESCAPES[e]
        if (decoded === undefined) this.fail('Invalid \\escape', end - 2)
        out += decoded
        continue
      }
      next++
      end = next + 4
      if (end >= len) this.fail('Invalid \\uXXXX escape', next - 1)
      let code = this.hex4(next, end - 5)
      next = end
      if (code >= 0xd800 && code <= 0xdbff && end + 6 < len && s[next] === '\\' && s[next + 1] === 'u') {
        const low = this.hex4(next + 2, end + 1)
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
          end += 6
        }
      }
      out += code >= 0x10000 ? String.fromCodePoint(code) : String.fromCharCode(code)
    }
  }

  private object(start: number): [Record<string, unknown>, number] {
    const s = this.s
    const result: Record<string, unknown> = {}
    let idx = this.skipWhitespace(start)
    if (idx >= s.length || s[idx] !== '}') {
      for (;;) {
        if (idx >= s.length || s[idx] !== '"') this.fail('Expecting property name enclosed in double quotes', idx)
        const [key, afterKey] = this.string(idx + 1)
        idx = this.skipWhitespace(afterKey)
        if (idx >= s.length || s[idx] !== ':') this.fail("Expecting ':' delimiter", idx)
        idx = this.skipWhitespace(idx + 1)
        const [value, afterValue] = this.scan(idx)
        // defineProperty: a "__proto__" key is data, as in Python's dict.
        Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true })
        idx = this.skipWhitespace(afterValue)
        if (idx < s.length && s[idx] === '}') break
        if (idx >= s.length || s[idx] !== ',') this.fail("Expecting ',' delimiter", idx)
        idx = this.skipWhitespace(idx + 1)
      }
    }
    return [result, idx + 1]
  }

  private array(start: number): [unknown[], number] {
    const s = this.s
    const result: unknown[] = []
    let idx = this.skipWhitespace(start)
    if (idx >= s.length || s[idx] !== ']') {
      for (;;) {
        const [value, after] = this.scan(idx)
        result.push(value)
        idx = this.skipWhitespace(after)
        if (idx < s.length && s[idx] === ']') break
        if (idx >= s.length || s[idx] !== ',') this.fail("Expecting ',' delimiter", idx)
        idx = this.skipWhitespace(idx + 1)
      }
    }
    return [result, idx + 1]
  }
}

/** `json.loads(text)` with DRF's strict constants; throws `PythonJsonError` with Python's message. */
export function parsePythonJson(text: string): unknown {
  const chars = Array.from(text)
  const scanner = new Scanner(chars)
  if (chars[0] === '\ufeff') scanner.fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0)
  const start = scanner.skipWhitespace(0)
  let value: unknown
  let end: number
  try {
    ;[value, end] = scanner.scan(start)
  } catch (error) {
    if (error instanceof StopScan) scanner.fail('Expecting value', error.index)
    throw error
  }
  end = scanner.skipWhitespace(end)
  if (end !== chars.length) scanner.fail('Extra data', end)
  return value
}
