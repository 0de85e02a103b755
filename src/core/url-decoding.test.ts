import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseFormBody } from './url-decoding.js'

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

  it('a name like __proto__ is a plain field', () => {
    expect(parseFormBody('__proto__=x&a=1')).toEqual(reference('__proto__=x&a=1'))
    expect(Object.getPrototypeOf(parseFormBody('__proto__=x'))).toBe(Object.prototype)
  })

  it('decodes a megabyte of `+` to spaces', () => {
    const body = `username=x${'+'.repeat(1024 * 1024)}x&password=y`
    expect(parseFormBody(body)).toEqual({ username: `x${' '.repeat(1024 * 1024)}x`, password: 'y' })
  })
})
