import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createApiRequest } from '../../core/request/request-factory.js'
import { ValidationError } from '../../core/errors.js'
import { isPythonSpace } from '../../core/request/python-strip.js'
import { ArrayPageSource } from '../array-page-source.js'
import { parseDjangoDateTime } from './parse-datetime.js'
import { exceedsNumberFilterMax, parsePyDecimal, truncateToSafeInteger } from './python-decimal.js'
import { FilterSet } from './filter-set.js'
import { SearchFilter, searchTerms } from './search-filter.js'

const request = (query: string) =>
  createApiRequest({ method: 'GET', url: new URL(`http://testserver/x/${query}`), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })

describe("parsePyDecimal (Python's Decimal(str), as Django's DecimalField reads it)", () => {
  // Expected values from CPython 3.11's decimal module.
  const cases: readonly (readonly [string, string | null])[] = [
    ['1__0', '10'], ['_1', '1'], ['1_.5', '1.5'], ['١٢', '12'], ['  5 ', '5'], ['5\u001c', '5'], ['+.5', '0.5'], ['5.', '5'],
    ['.', null], ['e5', null], ['1e', null], ['0x10', null], ['1 0', null], ['\u22125', null], ['５', '5'], ['', null], ['_', null],
    ['1e999999999999999999', '1e999999999999999999'], ['1e9999999999999999999', null],
  ]
  for (const [input, expected] of cases) {
    it(`reads ${JSON.stringify(input)}`, () => {
      const parsed = parsePyDecimal(input)
      if (expected === null) return expect(parsed).toBeNull()
      expect(parsed?.kind).toBe('finite')
      if (parsed?.kind !== 'finite') return
      expect(Number(`${parsed.digits}e${parsed.exponent}`)).toBe(Number(expected))
    })
  }
  it('reads the special values as not finite (Enter a number.)', () => {
    for (const s of ['NaN', 'nan123', '-inf', 'Infinity', 'snan']) expect(parsePyDecimal(s)?.kind).not.toBe('finite')
  })
  it('compares with the float 1e50 exactly, as Python does', () => {
    const big = (s: string): boolean => exceedsNumberFilterMax(parsePyDecimal(s) ?? { kind: 'nan', negative: false })
    expect(big('1e50')).toBe(false)
    expect(big('100000000000000007629769841091887003294964970946560')).toBe(false)
    expect(big('100000000000000007629769841091887003294964970946560.1')).toBe(true)
    expect(big('1e51')).toBe(true)
    expect(big('-1e60')).toBe(false)
  })
  it('truncates toward zero as int(Decimal) does', () => {
    const t = (s: string): number => {
      const p = parsePyDecimal(s)
      if (p?.kind !== 'finite') throw new Error(s)
      return truncateToSafeInteger(p)
    }
    expect([t('5.9'), t('-5.9'), t('1e1'), t('0.0001'), t('1e40')]).toEqual([5, -5, 10, 0, Number.MAX_SAFE_INTEGER])
  })
  it('property: agrees with Number() on plain decimal strings and never throws on any input', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const p = parsePyDecimal(String(x))
        expect(p?.kind).toBe('finite')
        if (p?.kind === 'finite') expect(Number(`${p.negative ? '-' : ''}${p.digits}e${p.exponent}`)).toBe(x === 0 ? 0 : x)
      }),
    )
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => void parsePyDecimal(s)))
  })
  it('property: linear, a long input reads quickly in one pass (no backtracking)', () => {
    expect(parsePyDecimal('1'.repeat(100_000) + 'x')).toBeNull()
    expect(parsePyDecimal('_'.repeat(100_000))).toBeNull()
  })
})

describe("parseDjangoDateTime (Django 3.2's DateTimeField under DateTimeFilter)", () => {
  const iso = (s: string): string | null => {
    const p = parseDjangoDateTime(s)
    return p === null ? null : `${new Date(p.epochMs).toISOString()}+${p.extraMicros}`
  }
  it('reads what Django reads, naive as UTC', () => {
    expect(iso('2024-01-01T00:30')).toBe('2024-01-01T00:30:00.000Z+0')
    expect(iso(' 2024-1-1 0:5 ')).toBe('2024-01-01T00:05:00.000Z+0')
    expect(iso('2024-01-01T00:30:00+01:00')).toBe('2023-12-31T23:30:00.000Z+0')
    expect(iso('2024-01-01T01:00:00-0030')).toBe('2024-01-01T01:30:00.000Z+0')
    expect(iso('2024-01-01T00:30:00.000001')).toBe('2024-01-01T00:30:00.000Z+1')
    expect(iso('2024-01-01T00:30:00,5Z')).toBe('2024-01-01T00:30:00.500Z+0')
    expect(iso('2024-01-01T00:30:00.1234567890123')).toBeNull()
    expect(iso('٢٠٢٤-01-01T00:30')).toBe('2024-01-01T00:30:00.000Z+0')
  })
  it("reads a bare date and Django's other input formats as midnight UTC (DateTimeFilter, not IsoDateTimeFilter)", () => {
    expect(iso('2024-01-01')).toBe('2024-01-01T00:00:00.000Z+0')
    expect(iso('01/02/24 3:04')).toBe('2024-01-02T03:04:00.000Z+0')
    expect(iso('Feb 3, 2024')).toBe('2024-02-03T00:00:00.000Z+0')
  })
  it('refuses what Django refuses (Enter a valid date/time.)', () => {
    for (const s of ['', ' ', 'yesterday', '2024-13-01', '2024-13-01T00:00', '2024-02-30T00:00', '2024-01-01T24:00', '2024-01-01T00:00+2400', '2024-01-01T00:00:', '0000-01-01T00:00', '2024-01-01T00:00+05:3'])
      expect([s, iso(s)]).toEqual([s, null])
  })
  it('property: round-trips every ISO timestamp of years 1000–9999 and never throws', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(parseDjangoDateTime(d.toISOString())?.epochMs).toBe(d.getTime())
      }),
    )
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => void parseDjangoDateTime(s)))
  })
})

describe("searchTerms (DRF 3.14's get_search_terms)", () => {
  it('splits on Python whitespace and commas, NUL removed', () => {
    expect(searchTerms('a,b  c\u0000d\u00a0e\u001cf')).toEqual(['a', 'b', 'c' + 'd', 'e', 'f'])
    expect(searchTerms(' , \u3000')).toEqual([])
  })
  it('property: terms hold no separator and join back to the input without separators', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ',', ' ', '\u0000', '\t', '\u00a0', '%'), maxLength: 60 }), (s) => {
        const terms = searchTerms(s)
        expect(terms.join('')).toBe([...s].filter((ch) => ch !== ',' && ch !== '\u0000' && !isPythonSpace(ch.charCodeAt(0))).join(''))
        for (const t of terms) expect(t).not.toBe('')
      }),
    )
  })
})

describe('FilterSet and SearchFilter over an ArrayPageSource', () => {
  const rows = Array.from({ length: 30 }, (_, k) => ({ id: k + 1, title: `Article ${String(k + 1).padStart(3, '0')}`, author: k % 2 === 0 ? 'alice' : 'bob', score: ((k + 1) * 7) % 10, created: new Date(Date.UTC(2024, 0, 1, 0, k + 1)) }))
  const filters = new FilterSet({
    id: { type: 'integer', lookups: ['exact', 'in'] },
    score: { type: 'integer', lookups: ['exact', 'gte', 'lt', 'in'] },
    title: { type: 'text', lookups: ['icontains'] },
    created: { type: 'datetime', lookups: ['gte', 'lt'] },
    min_score: { type: 'integer', condition: (v) => ({ kind: 'compare', field: 'score', op: '>=', value: v }) },
  })
  const search = new SearchFilter({ fields: ['title', '=author'] })
  const ids = async (query: string): Promise<number[]> => {
    const req = request(query)
    const conditions = [filters.conditionFor(req), search.conditionFor(req)].filter((c) => c !== null)
    let source = new ArrayPageSource(rows)
    for (const c of conditions) source = source.filtered(c)
    return (await source.all()).map((r) => r.id)
  }
  it('applies lookups, custom filters and search (every term in some field)', async () => {
    expect(await ids('?score__gte=8&id__in=1,2,3,4,5,6')).toEqual([4])
    expect(await ids('?min_score=9')).toEqual([7, 17, 27])
    expect(await ids('?id=5.9')).toEqual([5])
    expect(await ids('?search=ARTICLE,BOB 01')).toEqual([10, 12, 14, 16, 18])
    expect(await ids('?title__icontains=%25')).toEqual([])
    expect(await ids('?created__gte=2024-01-01T00:02:00.000001&created__lt=2024-01-01T00:04')).toEqual([3])
    expect(await ids('?score=&title__icontains=%20&search=')).toHaveLength(30)
  })
  it("answers every failing filter in declaration order with Django's messages", () => {
    try {
      filters.conditionFor(request('?created__lt=x&score=abc&id__in=1,x&score__gte=1e51&min_score=NaN'))
      expect.fail('no error')
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError)
      expect((error as ValidationError).detail).toEqual({
        id__in: ['Enter a number.'],
        score: ['Enter a number.'],
        score__gte: ['Ensure this value is less than or equal to 1e+50.'],
        created__lt: ['Enter a valid date/time.'],
        min_score: ['Enter a number.'],
      })
    }
  })
  /** Each parameter as name, description and schema. */
  const described = (set: FilterSet): string[][] => set.openApiParameters().map((p) => [String(p['name']), String(p['description']), JSON.stringify(p['schema'])])
  it('lists every filter as an OpenAPI parameter with its type and django-filter\'s label', () => {
    expect(described(filters)).toEqual([
      ['id', 'ID', '{"type":"integer"}'],
      // Comma-separated text, as django-filter reads it, with its help text.
      ['id__in', 'ID is in. Multiple values may be separated by commas.', '{"type":"string"}'],
      ['score', 'Score', '{"type":"integer"}'],
      ['score__gte', 'Score is greater than or equal to', '{"type":"integer"}'],
      ['score__lt', 'Score is less than', '{"type":"integer"}'],
      ['score__in', 'Score is in. Multiple values may be separated by commas.', '{"type":"string"}'],
      ['title__icontains', 'Title contains', '{"type":"string"}'],
      ['created__gte', 'Created is greater than or equal to', '{"type":"string","format":"date-time"}'],
      ['created__lt', 'Created is less than', '{"type":"string","format":"date-time"}'],
      ['min_score', 'Min score', '{"type":"integer"}'],
    ])
    const more = new FilterSet({
      kind: { type: 'choice', choices: ['a', 'b'], lookups: ['exact', 'in', 'isnull'] },
      ratio: { type: 'number', lookups: ['range'], description: 'Between two ratios.' },
      author__username: { type: 'text', lookups: ['iexact', 'istartswith'] },
      flag: { type: 'boolean', lookups: ['exact'] },
    })
    expect(described(more)).toEqual([
      ['kind', 'Kind', '{"type":"string","enum":["a","b"]}'],
      ['kind__in', 'Kind is in. Multiple values may be separated by commas.', '{"type":"string"}'],
      ['kind__isnull', 'Kind is null', '{"type":"boolean"}'],
      ['ratio__range', 'Between two ratios.', '{"type":"string"}'],
      ['author__username__iexact', 'Author username', '{"type":"string"}'],
      ['author__username__istartswith', 'Author username starts with', '{"type":"string"}'],
      ['flag', 'Flag', '{"type":"boolean"}'],
    ])
  })
})
