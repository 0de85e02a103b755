import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseCookies } from './request-factory.js'
import { parsePythonJson, PythonJsonError } from './python-json.js'
import { hasDigitRunLongerThan, isPythonIntSpace, isPythonSpace, pythonStrip } from './python-strip.js'

// The reference: what the old regex did (fine on small inputs, quadratic on long inner runs).
const PY_SPACE = '\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const REFERENCE = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g')
const referenceStrip = (value: string): string => value.replace(REFERENCE, '')

const spacey = fc.string({
  unit: fc.constantFrom(' ', '\t', '\n', '\u000b', '\u001c', '\u0085', '\u00a0', '\u2003', '\u3000', '\ufeff', 'a', 'é', '+', '0'),
  maxLength: 40,
})

describe('pythonStrip', () => {
  it('agrees with the regex definition of str.strip() on arbitrary strings', () => {
    fc.assert(fc.property(spacey, (value) => pythonStrip(value) === referenceStrip(value)))
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (value) => pythonStrip(value) === referenceStrip(value)))
  })

  it('keeps U+FEFF (not whitespace in Python) and strips U+001C..U+001F and U+0085', () => {
    expect(isPythonSpace(0xfeff)).toBe(false)
    expect(pythonStrip('\u001c\u0085 x \u001f')).toBe('x')
    expect(pythonStrip('\ufeffx')).toBe('\ufeffx')
  })

  it('int()\'s whitespace is str.isspace()\'s without U+001C..U+001F', () => {
    for (let code = 0; code < 0x3001; code++) expect(isPythonIntSpace(code)).toBe(isPythonSpace(code) && !(code >= 0x1c && code <= 0x1f))
  })

  it('strips the hostile shapes at full size: a 400 KB inner whitespace run survives, the ends go', () => {
    const inner = `x${' '.repeat(400_000)}x`
    expect(pythonStrip(`  ${inner}\t`)).toBe(inner)
    expect(pythonStrip(' '.repeat(1_000_000))).toBe('')
  })
})

describe('hasDigitRunLongerThan', () => {
  it('finds a run only when it is longer than the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('1', '2', 'a', ' ', '-'), maxLength: 60 }), fc.integer({ min: 0, max: 8 }), (text, limit) =>
        hasDigitRunLongerThan(text, limit) === new RegExp(`\\d{${limit + 1}}`).test(text),
      ),
    )
  })
})

describe('hostile inputs at their size limits (status and message, not timing)', () => {
  it('a 1 MB JSON body of 4,300-digit runs parses; a 4,301-digit integer gets Python\'s message', () => {
    const run = '1'.repeat(4300)
    const body = `[${Array.from({ length: 240 }, () => run).join(',')}]`
    expect(body.length).toBeGreaterThan(1_000_000)
    expect((parsePythonJson(body) as unknown[]).length).toBe(240)
    expect(() => parsePythonJson(`[${'1'.repeat(4301)}]`)).toThrow(PythonJsonError)
  })

  it('a cookie with a 15,000-space run inside a value keeps the run and trims the ends', () => {
    const value = `a${' '.repeat(15_000)}b`
    expect(parseCookies(`  sessionid= ${value} ; csrftoken=x`)).toEqual({ sessionid: value, csrftoken: 'x' })
  })
})
