import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TEST_SECRET } from '../../test/helpers/secrets.js'
import type { ApiRequest } from '../core/api-request.js'
import { createApi } from '../core/api.js'
import { ConfigurationError } from '../core/errors.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { ArrayPageSource } from './array-page-source.js'
import { CursorPagination } from './cursor-pagination.js'
import { LimitOffsetPagination } from './limit-offset-pagination.js'
import { listHandler } from './list-handler.js'
import { OrderingFilter } from './ordering-filter.js'
import { PageNumberPagination } from './page-number-pagination.js'
import type { OrderingField, Page, PageSource, Paginator } from './paginator.js'

function getRequest(url: string): ApiRequest {
  return createApiRequest({ method: 'GET', url: new URL(url), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

const spelled = (ordering: readonly OrderingField[] | null): string | null =>
  ordering === null ? null : ordering.map((f) => (f.descending ? `-${f.field}` : f.field)).join(',')

const filter = new OrderingFilter({ fields: ['id', 'title', 'score', 'created'], ordering: 'id' })
const orderingOf = (query: string, f: OrderingFilter = filter): string | null => spelled(f.orderingFor(getRequest(`http://testserver/x/${query}`)))

describe('OrderingFilter.orderingFor (DRF OrderingFilter.get_ordering, drf-behaviors §14.2)', () => {
  const cases: readonly (readonly [string, string | null])[] = [
    ['', 'id'],
    ['?ordering=', 'id'],
    ['?ordering=-score', '-score'],
    ['?ordering=-score,id', '-score,id'],
    ['?ordering=%20-score%20,%20title', '-score,title'],
    // Python's str.strip(): NBSP and ideographic space are whitespace, a zero-width space is not.
    ['?ordering=%C2%A0-score%E3%80%80', '-score'],
    ['?ordering=%E2%80%8B-score', 'id'],
    ['?ordering=bogus', 'id'],
    ['?ordering=bogus,created', 'created'],
    ['?ordering=Score', 'id'],
    ['?ordering=--id', 'id'],
    ['?ordering=-', 'id'],
    ['?ordering=,,-title,', '-title'],
    ['?ordering=created__lt', 'id'],
    // Each field once, the first mention winning: DRF's order_by('id', '-id') is by id.
    ['?ordering=id,-id', 'id'],
    ['?ordering=-score,score,-score,created', '-score,created'],
    // Django's QueryDict.get: the last value of a repeated parameter.
    ['?ordering=-title&ordering=score', 'score'],
    ['?ordering=score&ordering=', 'id'],
    ['?ordering=score+,+-created', 'score,-created'],
    ['?other=-score', 'id'],
  ]
  for (const [query, expected] of cases) {
    it(`${query || '(none)'} → ${expected}`, () => expect(orderingOf(query)).toBe(expected))
  }

  it('without a default ordering, no allowed field means null (the style keeps its own)', () => {
    const bare = new OrderingFilter({ fields: ['score'] })
    expect(orderingOf('?ordering=bogus', bare)).toBeNull()
    expect(orderingOf('', bare)).toBeNull()
    expect(orderingOf('?ordering=-score', bare)).toBe('-score')
  })

  it('reads the configured parameter only', () => {
    const custom = new OrderingFilter({ fields: ['score'], param: 'sort', ordering: ['-score'] })
    expect(orderingOf('?sort=score', custom)).toBe('score')
    expect(orderingOf('?ordering=score', custom)).toBe('-score')
  })

  // Python's str.isspace() set (JavaScript's \s differs: it has U+FEFF, lacks U+001C-U+001F and U+0085).
  const PY_SPACE = '[\\t\\n\\v\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]'
  const PY_SPACE_EDGES = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g')

  it('matches a model of DRF’s parsing for any query value, and never throws (property)', () => {
    const fields = ['id', 'title', 'score', 'created']
    const model = (value: string): string => {
      // DRF: split on ",", strip, drop what is not a field after one "-"; here also each field once.
      const seen = new Set<string>()
      const kept: string[] = []
      for (const piece of value.split(',')) {
        const term = piece.replace(PY_SPACE_EDGES, '')
        const field = term.startsWith('-') ? term.slice(1) : term
        if (fields.includes(field) && !seen.has(field)) {
          seen.add(field)
          kept.push(term)
        }
      }
      return kept.length === 0 ? 'id' : kept.join(',')
    }
    const term = fc.oneof(
      fc.constantFrom('id', '-id', 'title', '-title', 'score', '-score', 'created', '-created', '--id', '-', '', ' score\t', '\u00a0-created', '\ufeffscore', '\u001f-id\u0085', 'Title'),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
    )
    fc.assert(
      fc.property(fc.oneof(fc.array(term, { maxLength: 8 }).map((t) => t.join(',')), fc.string({ unit: 'binary' })), (value) => {
        const ordering = filter.orderingFor(getRequest(`http://testserver/x/?ordering=${encodeURIComponent(value)}`))
        expect(spelled(ordering)).toBe(value === '' ? 'id' : model(value))
        expect(ordering?.every((f) => fields.includes(f.field))).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('is linear in the parameter: the work grows in proportion to the number of terms (no clock)', () => {
    // Work is counted, not timed: every call of the string, array and set methods a parser
    // scans or looks up with, the scanning ones weighted by the length they scan.
    const work = (terms: number): number => {
      const pieces = Array.from({ length: terms }, (_, i) => [' -score ', `bogus${i}`, 'id', `\u3000-title${i % 7}`, '--id'][i % 5]!)
      const request = getRequest(`http://testserver/x/?ordering=${encodeURIComponent(pieces.join(','))}`)
      const counted = countingWork(() => filter.orderingFor(request))
      expect(spelled(counted.result)).toBe('-score,id')
      return counted.work
    }
    const sizes = [500, 2_000, 8_000, 32_000]
    const perTerm = sizes.map((n) => work(n) / n)
    // Linear: the work per term stays flat (a quadratic step would make it grow 64-fold here).
    expect(Math.max(...perTerm) / Math.min(...perTerm)).toBeLessThan(1.5)
    expect(perTerm[0]).toBeGreaterThan(0)
  })
})

/** What `fn` returns and how much work it did, counted through the built-in methods it calls. */
function countingWork<T>(fn: () => T): { result: T; work: number } {
  let work = 0
  const patched: Array<[object, string, unknown]> = []
  /** `call`: 1 per call; `scan`: 1 + the length of the receiver; `copy`: 1 + the length of the result. */
  const count = (proto: object, name: string, cost: 'call' | 'scan' | 'copy'): void => {
    const original = (proto as Record<string, unknown>)[name] as (...args: unknown[]) => unknown
    patched.push([proto, name, original])
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      value: function (this: { length?: number }, ...args: unknown[]): unknown {
        const result = original.apply(this, args)
        work += 1 + (cost === 'scan' ? (this.length ?? 0) : cost === 'copy' ? ((result as { length?: number } | null)?.length ?? 0) : 0)
        return result
      },
    })
  }
  for (const name of ['charCodeAt', 'codePointAt', 'startsWith', 'endsWith']) count(String.prototype, name, 'call')
  for (const name of ['slice', 'substring', 'trim', 'trimStart', 'trimEnd']) count(String.prototype, name, 'copy')
  for (const name of ['indexOf', 'lastIndexOf', 'includes', 'split', 'replace', 'match', 'search']) count(String.prototype, name, 'scan')
  for (const name of ['indexOf', 'includes', 'find', 'findIndex', 'some', 'every', 'filter', 'map', 'forEach', 'slice']) count(Array.prototype, name, 'scan')
  for (const name of ['has', 'add']) count(Set.prototype, name, 'call')
  for (const name of ['has', 'get', 'set']) count(Map.prototype, name, 'call')
  try {
    const result = fn()
    return { result, work }
  } finally {
    for (const [proto, name, original] of patched) Object.defineProperty(proto, name, { configurable: true, writable: true, value: original })
  }
}

describe('OrderingFilter options', () => {
  it('rejects what a client could never name, when declared', () => {
    for (const options of [
      { fields: [] },
      { fields: [''] },
      { fields: ['-score'] },
      { fields: ['a,b'] },
      { fields: [' score'] },
      { fields: ['score'], ordering: [] },
      { fields: ['score'], ordering: '--score' },
      { fields: ['score'], ordering: '' },
      { fields: ['score'], param: '' },
      { fields: ['score'], uniqueField: '-id' },
    ]) {
      expect(() => new OrderingFilter(options)).toThrow(ConfigurationError)
    }
  })

  it('validateFields names every field the source lacks (fields, default ordering, tiebreaker)', () => {
    const f = new OrderingFilter({ fields: ['score', 'rank'], ordering: '-created', uniqueField: 'pk' })
    expect(() => f.validateFields(['score', 'rank', 'created', 'pk'], 'GET /x/')).not.toThrow()
    expect(() => f.validateFields(['score', 'id'], 'GET /x/')).toThrow(/GET \/x\/: OrderingFilter orders by "rank", "created", "pk"/)
  })

  it('listHandler({ fields, ordering }) checks the filter when the view is declared', () => {
    const api = createApi({ pagination: new PageNumberPagination({ pageSize: 5 }) })
    const declare = (ordering: OrderingFilter): unknown =>
      api.view({ name: 'Rows', handlers: { GET: listHandler({ source: () => new ArrayPageSource(ROWS), serialize: (r) => r, fields: ['id', 'score'], ordering }) } })
    expect(() => declare(new OrderingFilter({ fields: ['score'], ordering: '-id' }))).not.toThrow()
    expect(() => declare(new OrderingFilter({ fields: ['score', 'created'] }))).toThrow(/OrderingFilter orders by "created"/)
  })

  it('describes its parameter for OpenAPI: a comma-separated list of the allowed values', () => {
    expect(filter.openApiParameter()).toEqual({
      name: 'ordering',
      in: 'query',
      required: false,
      description:
        'Which field to use when ordering the results. A comma-separated list of id, title, score, created, each optionally prefixed with "-" for descending; unknown fields are ignored. Default: id.',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: ['id', '-id', 'title', '-title', 'score', '-score', 'created', '-created'] } },
    })
  })

  it('needs a source that can be reordered', () => {
    const fixed: PageSource<number> = { count: async () => 0, slice: async () => [], all: async () => [] }
    expect(() => filter.apply(fixed, getRequest('http://testserver/x/?ordering=score'))).toThrow(ConfigurationError)
  })
})

interface Row {
  id: number
  score: number
  created: number
}
// Heavy ties on both fields, ids not in either order.
const ROWS: Row[] = Array.from({ length: 40 }, (_, i) => ({ id: ((i * 17) % 40) + 1, score: (i * 7) % 4, created: Math.floor(i / 6) }))

async function walk<T>(p: Paginator, f: OrderingFilter, source: PageSource<T>, url: string, dir: 'next' | 'previous'): Promise<Page<T>[]> {
  const pages: Page<T>[] = []
  let current: string | null = url
  while (current !== null) {
    const req = getRequest(current)
    const applied = f.apply(source, req)
    const page: Page<T> | null = await p.paginate(applied.source, req, { ordering: applied.ordering })
    if (page === null) throw new Error('pagination off')
    pages.push(page)
    current = page[dir]
    if (pages.length > 100) throw new Error('loop')
  }
  return pages
}

const sorted = (ordering: string): number[] => {
  const terms = ordering.split(',').map((t) => (t.startsWith('-') ? { k: t.slice(1) as keyof Row, s: -1 } : { k: t as keyof Row, s: 1 }))
  terms.push({ k: 'id', s: 1 })
  return [...ROWS].sort((a, b) => terms.map((t) => t.s * (a[t.k] - b[t.k])).find((d) => d !== 0) ?? 0).map((r) => r.id)
}

describe('OrderingFilter with each pagination style (ArrayPageSource)', () => {
  const source = new ArrayPageSource(ROWS)
  const f = new OrderingFilter({ fields: ['id', 'score', 'created'] })
  const orderings = ['score', '-score', 'created', '-created', '-id', '-score,created', 'created,-score', 'score,-id']

  it('page number and limit/offset: pages in the chosen order, id breaking ties; links keep ?ordering=', async () => {
    for (const p of [new PageNumberPagination({ pageSize: 7 }), new LimitOffsetPagination({ defaultLimit: 7 })]) {
      for (const ordering of orderings) {
        const pages = await walk(p, f, source, `http://testserver/x/?ordering=${ordering}`, 'next')
        expect([ordering, pages.flatMap((pg) => pg.items.map((r) => r.id))]).toEqual([ordering, sorted(ordering)])
        for (const pg of pages) if (pg.next !== null) expect(new URL(pg.next).searchParams.get('ordering')).toBe(ordering)
      }
    }
  })

  it('no ordering: the source keeps its own order', async () => {
    const pages = await walk(new PageNumberPagination({ pageSize: 7 }), f, source, 'http://testserver/x/?ordering=nope', 'next')
    expect(pages.flatMap((pg) => pg.items.map((r) => r.id))).toEqual(ROWS.map((r) => r.id))
  })

  it('cursor: each ordering walks every row once, forward and back, in the chosen order', async () => {
    const p = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 6 })
    for (const ordering of orderings) {
      const forward = await walk(p, f, source, `http://testserver/x/?ordering=${ordering}`, 'next')
      expect([ordering, forward.flatMap((pg) => pg.items.map((r) => r.id))]).toEqual([ordering, sorted(ordering)])
      const last = forward[forward.length - 1]
      const back = await walk(p, f, source, last?.previous ?? '', 'previous')
      expect(back.map((pg) => pg.items.map((r) => r.id))).toEqual(forward.slice(0, -1).map((pg) => pg.items.map((r) => r.id)).reverse())
    }
    // No allowed field, no filter default: the paginator's own ordering.
    const own = await walk(p, f, source, 'http://testserver/x/?ordering=title', 'next')
    expect(own.flatMap((pg) => pg.items.map((r) => r.id))).toEqual(sorted('created'))
  })

  it('cursor: a cursor is valid only under the ordering it was issued for', async () => {
    const p = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 6 })
    const first = await walk(p, f, source, 'http://testserver/x/?ordering=-score', 'next')
    const next = first[0]?.next ?? ''
    for (const other of ['score', 'created', '-score,created', 'title', '']) {
      const url = new URL(next)
      url.searchParams.set('ordering', other)
      await expect(walk(p, f, source, url.toString(), 'next')).rejects.toThrow('Invalid cursor')
    }
    // Encoded for the filter's choice, decoded under the same one.
    const cursor = new URL(next).searchParams.get('cursor') ?? ''
    const chosen = f.orderingFor(getRequest(next)) ?? []
    expect(p.decode(cursor, chosen)).not.toBeNull()
    expect(p.decode(cursor)).toBeNull()
    expect(p.encode({ reverse: false, key: null }, chosen)).not.toBe(p.encode({ reverse: false, key: null }))
  })
})
