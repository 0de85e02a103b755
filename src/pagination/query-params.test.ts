import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  parsePositiveInt,
  parsePythonInt,
  parseQuery,
  queryParam,
  queryParamReplacer,
  quotePlus,
  removeQueryParam,
  replaceQueryParam,
} from './query-params.js'

describe('replaceQueryParam / removeQueryParam (DRF utils/urls.py, drf-behaviors §11.3)', () => {
  const base = 'http://testserver/pn/'
  it('sorts keys, keeps multi-values in order and blank values', () => {
    expect(replaceQueryParam(`${base}?page=2&b=2&a=1&a=0`, 'page', 3)).toBe(`${base}?a=1&a=0&b=2&page=3`)
    expect(removeQueryParam(`${base}?page=2&b=2&a=1&a=0`, 'page')).toBe(`${base}?a=1&a=0&b=2`)
    expect(replaceQueryParam(`${base}?page=2&empty=`, 'page', 3)).toBe(`${base}?empty=&page=3`)
  })
  it('re-encodes values as form data', () => {
    expect(replaceQueryParam(`${base}?z=%20x%2Fy&page=3`, 'page', 4)).toBe(`${base}?page=4&z=+x%2Fy`)
    expect(replaceQueryParam(`${base}?q=%zz&page=2`, 'page', 3)).toBe(`${base}?page=3&q=%25zz`)
    expect(replaceQueryParam(`${base}?page=2&page=3`, 'page', 4)).toBe(`${base}?page=4`)
    expect(replaceQueryParam(`${base}?é=ü`, 'page', 2)).toBe(`${base}?page=2&%C3%A9=%C3%BC`)
  })
  it('queryParamReplacer gives replaceQueryParam\'s URL for any query, key and value', () => {
    const piece = fc.oneof(fc.constantFrom('cursor', 'page', 'a', 'z', '', '%', '%2', '%zz', '+', '=', '#', 'é', '%C3%A9', 'curs%6Fr'), fc.string({ maxLength: 6 }))
    const query = fc.array(fc.tuple(piece, fc.option(piece, { nil: undefined })), { maxLength: 6 })
    fc.assert(
      fc.property(query, fc.constantFrom('cursor', 'page', 'é', 'a b'), fc.string({ maxLength: 12 }), fc.boolean(), (pairs, key, value, hash) => {
        const text = pairs.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&')
        const url = `${base}${text === '' ? '' : `?${text}`}${hash ? '#frag' : ''}`
        expect(queryParamReplacer(url, key)(value)).toBe(replaceQueryParam(url, key, value))
      }),
      { numRuns: 500 },
    )
  })
  it('drops the query entirely when nothing is left', () => {
    expect(removeQueryParam(`${base}?page=2`, 'page')).toBe(base)
    expect(removeQueryParam(base, 'page')).toBe(base)
  })
  it('quotePlus keeps only unreserved characters', () => {
    expect(quotePlus('a b/c~d_e.f-g%')).toBe('a+b%2Fc~d_e.f-g%25')
  })
})

describe('queryParam (Django QueryDict.get)', () => {
  it('returns the last value; `;` is not a separator', () => {
    expect(queryParam(new URL('http://x/?page=2&page=3'), 'page')).toBe('3')
    expect(queryParam(new URL('http://x/?page=2;x=1'), 'page')).toBe('2;x=1')
    expect(queryParam(new URL('http://x/?page'), 'page')).toBe('')
    expect(queryParam(new URL('http://x/?a=1'), 'page')).toBeNull()
  })
  it('parseQuery decodes plus and percent escapes, invalid UTF-8 as U+FFFD', () => {
    expect([...parseQuery('a=%20b+c&d=%FF')]).toEqual([
      ['a', [' b c']],
      ['d', ['\uFFFD']],
    ])
  })
})

describe('parsePythonInt / parsePositiveInt (DRF _positive_int, §11.2)', () => {
  it('accepts what Python int() accepts', () => {
    expect(parsePythonInt(' 2 ')).toBe(2n)
    expect(parsePythonInt('+2')).toBe(2n)
    expect(parsePythonInt('1_0')).toBe(10n)
    expect(parsePythonInt('٣')).toBe(3n)
    expect(parsePythonInt('१२')).toBe(12n)
    expect(parsePythonInt('-7')).toBe(-7n)
    expect(parsePythonInt('100000000000000000000000000000')).toBe(10n ** 29n)
  })
  it('rejects what Python int() rejects', () => {
    for (const bad of ['', ' ', '2.0', 'abc', '1__0', '_1', '1_', '0x10', '1e3', '--1', '+-1', '²']) expect(parsePythonInt(bad)).toBeNull()
  })
  it('strips exactly the code points Python\'s int() strips: property over every code point', () => {
    // python3 -c "print([hex(c) for c in range(0x110000) if chr(c).isspace()])" (CPython 3.11, Unicode 14)
    // prints these and U+001C..U+001F, which int() does not strip: the list int() strips is
    // [hex(c) for c in range(0x110000) if not 0xd800 <= c <= 0xdfff and ok(chr(c))], where
    // ok(ch) is int(ch + '7' + ch) == 7 with ValueError as False (checked against DRF 3.14:
    // ?page=%1C2%1F is 404 "Invalid page.", ?page=%C2%852 is page 2).
    const PYTHON_SPACE = new Set([
      0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
      0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
    ])
    const wrong: string[] = []
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue
      const ch = String.fromCodePoint(code)
      // Around a digit on both sides: only whitespace leaves the 7 alone (a digit, sign or `_` makes it another number or none).
      const stripped = parsePythonInt(`${ch}7${ch}`) === 7n
      if (stripped !== PYTHON_SPACE.has(code)) wrong.push(code.toString(16))
    }
    expect(wrong).toEqual([])
    // The ones String#trim() gets wrong, as query values: DRF reads `%C2%852` as 2 and `%EF%BB%BF2` as no number.
    expect(parsePythonInt('\u00852')).toBe(2n)
    expect(parsePythonInt('\u001c2\u001f')).toBeNull()
    expect(parsePythonInt('\ufeff2')).toBeNull()
  })
  it('strict rejects zero, negatives always rejected, truthy cutoff clamps', () => {
    expect(parsePositiveInt('0')).toBe(0n)
    expect(parsePositiveInt('0', true)).toBeNull()
    expect(parsePositiveInt('-3', true)).toBeNull()
    expect(parsePositiveInt('1000', true, 25)).toBe(25n)
    expect(parsePositiveInt('1000', true, 0)).toBe(1000n)
  })
})
