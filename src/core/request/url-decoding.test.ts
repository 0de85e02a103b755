import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseBody } from './body-parser.js'
import { ParseError } from '../errors.js'
import { parseFormBody, parseQuery, unquotePlus } from './url-decoding.js'

const reference = (text: string): Record<string, string> => Object.fromEntries(new URLSearchParams(text).entries())

describe('parseFormBody', () => {
  it('reads what URLSearchParams reads, for arbitrary bodies', () => {
    // ASCII text (Node's URLSearchParams mis-decodes a literal non-ASCII character next to escapes: see below).
    const unit = fc.constantFrom('a', 'b', '=', '&', '+', '%', '2', '0', 'E', '8', '%C3%A9', '%E2%82', '%zz', '?', ' ', '%00')
    fc.assert(fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
      expect(parseFormBody(text)).toEqual(reference(text))
    }))
  })

  it('decodes as Python (Django QueryDict) does: literal text kept, each escape run as UTF-8 with replacement', () => {
    // Python: unquote_plus('é%aa', errors='replace') == 'é\ufffd' (Node's URLSearchParams gives '\ufffd').
    expect(parseFormBody('é%aa=1')).toEqual({ 'é\ufffd': '1' })
    expect(parseFormBody('a=%E2%82%AC+%E2%82')).toEqual({ a: '€ \ufffd' })
    expect(parseFormBody('a=%zz%4')).toEqual({ a: '%zz%4' })
  })

  it('keeps a U+FEFF the client sent, at the start of a value or of the body (Python keeps it)', () => {
    expect(parseFormBody('a=%EF%BB%BFalice')).toEqual({ a: '\ufeffalice' })
    expect(parseQuery('?page_size=%EF%BB%BF2').get('page_size')).toEqual(['\ufeff2'])
    expect(unquotePlus('%EF%BB%BF+x')).toBe('\ufeff x')
  })

  it('a name like __proto__ is a plain field', () => {
    expect(parseFormBody('__proto__=x&a=1')).toEqual(reference('__proto__=x&a=1'))
    expect(Object.getPrototypeOf(parseFormBody('__proto__=x'))).toBe(Object.prototype)
  })

  it('decodes a megabyte of `+` to spaces', () => {
    const body = `username=x${'+'.repeat(1024 * 1024)}x&password=y`
    expect(parseFormBody(body)).toEqual({ username: `x${' '.repeat(1024 * 1024)}x`, password: 'y' })
  })
})

describe('the form field cap (Django DATA_UPLOAD_MAX_NUMBER_FIELDS)', () => {
  const pairs = (n: number): string => Array.from({ length: n }, (_, i) => `f${i}=x`).join('&')

  it('accepts 1000 fields by default and refuses 1001 with a 400 ParseError', () => {
    expect(Object.keys(parseFormBody(pairs(1000)))).toHaveLength(1000)
    let error: unknown
    try {
      parseFormBody(pairs(1001))
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ParseError)
    expect((error as ParseError).status).toBe(400)
    expect((error as ParseError).message).toBe('The number of form fields exceeded the limit of 1000.')
    expect((error as ParseError).code).toBe('too_many_fields')
  })

  it('counts empty pieces as Django does, and the cap is configurable', () => {
    expect(() => parseFormBody('a=1&&&', 3)).toThrow(ParseError)
    expect(parseFormBody('a=1&&', 3)).toEqual({ a: '1' })
    expect(() => parseFormBody(pairs(6), 5)).toThrow(/limit of 5\./)
    expect(Object.keys(parseFormBody(pairs(5000), Number.POSITIVE_INFINITY))).toHaveLength(5000)
  })

  it('property: refuses exactly the bodies with more &-separated pieces than the cap, else reads as URLSearchParams', () => {
    const unit = fc.constantFrom('a', '=', '&', '+', '%41', '')
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (text, max) => {
        const pieces = (text.startsWith('?') ? text.slice(1) : text).split('&').length
        if (pieces > max) expect(() => parseFormBody(text, max)).toThrow(ParseError)
        else expect(parseFormBody(text, max)).toEqual(reference(text))
      }),
    )
  })
})

describe('the multipart part cap (parseBody)', () => {
  const BOUNDARY = '----gh7Boundary'
  const multipart = (n: number, boundary = BOUNDARY): Uint8Array =>
    new TextEncoder().encode(
      Array.from({ length: n }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`).join('') + `--${boundary}--\r\n`,
    )
  const type = `multipart/form-data; boundary=${BOUNDARY}`

  it('accepts 1000 parts and refuses 1001, and a configured cap', async () => {
    expect(Object.keys((await parseBody(type, multipart(1000))) as object)).toHaveLength(1000)
    await expect(parseBody(type, multipart(1001))).rejects.toThrow('The number of form fields exceeded the limit of 1000.')
    await expect(parseBody(type, multipart(3), { maxFormFields: 2 })).rejects.toBeInstanceOf(ParseError)
    expect(await parseBody(`multipart/form-data; boundary="${BOUNDARY}"`, multipart(2), { maxFormFields: 2 })).toEqual({ f0: 'x', f1: 'x' })
  })

  it('property: n parts pass exactly when n <= cap', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 10 }), async (n, max) => {
        const parsed = parseBody(type, multipart(n), { maxFormFields: max })
        if (n > max) await expect(parsed).rejects.toThrow(/exceeded the limit/)
        else if (n > 0) expect(Object.keys((await parsed) as object)).toHaveLength(n)
        else await parsed.catch(() => undefined)
      }),
      { numRuns: 60 },
    )
  })

  it('an urlencoded body through parseBody is capped too', async () => {
    const body = new TextEncoder().encode(Array.from({ length: 1001 }, (_, i) => `f${i}=x`).join('&'))
    await expect(parseBody('application/x-www-form-urlencoded', body)).rejects.toBeInstanceOf(ParseError)
    expect(Object.keys((await parseBody('application/x-www-form-urlencoded', body, { maxFormFields: 1001 })) as object)).toHaveLength(1001)
  })
})
