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
    // int() strips non-ASCII Unicode whitespace too (checked against CPython).
    expect(parsePythonInt('\u00852\u3000')).toBe(2n)
    expect(parsePythonInt('\t2\v')).toBe(2n)
  })
  it('rejects what Python int() rejects', () => {
    for (const bad of ['', ' ', '2.0', 'abc', '1__0', '_1', '1_', '0x10', '1e3', '--1', '+-1', '²', '\ufeff2', '\u001c2', '\u200b2']) expect(parsePythonInt(bad)).toBeNull()
  })
  it('strict rejects zero, negatives always rejected, truthy cutoff clamps', () => {
    expect(parsePositiveInt('0')).toBe(0n)
    expect(parsePositiveInt('0', true)).toBeNull()
    expect(parsePositiveInt('-3', true)).toBeNull()
    expect(parsePositiveInt('1000', true, 25)).toBe(25n)
    expect(parsePositiveInt('1000', true, 0)).toBe(1000n)
  })
})
