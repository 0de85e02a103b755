import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { ArrayPageSource } from './array-page-source.js'
import { CountCache } from './count-cache.js'
import type { CountStrategy } from './count-strategy.js'
import { LimitOffsetPagination, type LimitOffsetState } from './limit-offset-pagination.js'
import { LinkHeaderPagination } from './link-header-pagination.js'
import { PageNumberPagination, type PageNumberState } from './page-number-pagination.js'
import type { Page, PageSource } from './paginator.js'

function getRequest(url: string): ApiRequest {
  return createApiRequest({ method: 'GET', url: new URL(url), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

type Row = { id: number }
const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ id: i + 1 }))
const ids = (page: Page<Row, unknown> | null): number[] => (page?.items ?? []).map((x) => x.id)
const B = 'http://testserver/x/'

/** A promise the test settles. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/**
 * An array source whose counts wait for the test's go-ahead and which records what was
 * called, in order: shows which calls a paginator makes before the count is known.
 */
class HeldSource implements PageSource<Row> {
  readonly calls: string[] = []
  private readonly inner: ArrayPageSource<Row>
  private readonly gate = deferred<void>()
  constructor(n: number, private readonly estimate: number | null = null, private readonly key: string | null = null) {
    this.inner = new ArrayPageSource(rows(n))
  }
  release(): void {
    this.gate.resolve()
  }
  async count(): Promise<number> {
    this.calls.push('count')
    await this.gate.promise
    return this.inner.count()
  }
  async countAtMost(limit: number): Promise<number> {
    this.calls.push(`countAtMost(${limit})`)
    await this.gate.promise
    return this.inner.countAtMost(limit)
  }
  async estimatedCount(): Promise<number | null> {
    this.calls.push('estimatedCount')
    await this.gate.promise
    return this.estimate
  }
  countKey(): string | null {
    return this.key
  }
  async slice(offset: number, limit: number): Promise<readonly Row[]> {
    this.calls.push(`slice(${offset},${limit})`)
    return this.inner.slice(offset, limit)
  }
  async all(): Promise<readonly Row[]> {
    return this.inner.all()
  }
}

/** Lets pending promise callbacks run (no timers involved). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

describe('count strategies: validation', () => {
  const bad: unknown[] = ['Exact', 'capped', { capped: 0 }, { capped: 1.5 }, { capped: -1 }, { capped: '10' }, { cachedMs: 0 }, { cachedMs: -5 }]
  bad.push({ cachedMs: Number.NaN }, { cachedMs: 10, maxEntries: 0 }, { cachedMs: 10, maxEntries: 2.5 }, { capped: 5, cachedMs: 5 }, { cachedMs: 5, now: 3 }, {}, null, 5)
  for (const count of bad) {
    it(`rejects ${JSON.stringify(count)} with ERR_INVALID_SETTING`, () => {
      expect(() => new PageNumberPagination({ pageSize: 5, count: count as CountStrategy })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_SETTING' }))
      expect(() => new LimitOffsetPagination({ defaultLimit: 5, count: count as CountStrategy })).toThrow(/LimitOffsetPagination option "count"/)
    })
  }

  it('keeps a frozen copy of the option, never the caller object', () => {
    const option = { cachedMs: 1000, maxEntries: 3 }
    const p = new PageNumberPagination({ count: option })
    expect(p.countStrategy).toEqual(option)
    expect(p.countStrategy).not.toBe(option)
    expect(Object.isFrozen(p.countStrategy)).toBe(true)
    expect(new LimitOffsetPagination().countStrategy).toBe('exact')
  })
})

describe('exact count: the page is read while the count runs', () => {
  const paginator = new PageNumberPagination({ pageSize: 10 })

  it('a numeric page: slice and count are both asked for before the count answers', async () => {
    const source = new HeldSource(137)
    const pending = paginator.paginate(source, getRequest(`${B}?page=3`))
    await settle()
    expect(source.calls).toEqual(['count', 'slice(20,10)'])
    source.release()
    const page = await pending
    expect(ids(page)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30])
    expect(page?.count).toBe(137)
  })

  it('no page parameter: page 1, also together', async () => {
    const source = new HeldSource(3)
    const pending = paginator.paginate(source, getRequest(B))
    await settle()
    expect(source.calls).toEqual(['count', 'slice(0,10)'])
    source.release()
    expect(ids(await pending)).toEqual([1, 2, 3])
  })

  it('last: the count first, then the last page only', async () => {
    const source = new HeldSource(137)
    const pending = paginator.paginate(source, getRequest(`${B}?page=last`))
    await settle()
    expect(source.calls).toEqual(['count'])
    source.release()
    const page = await pending
    expect(source.calls).toEqual(['count', 'slice(130,7)'])
    expect(ids(page)).toEqual([131, 132, 133, 134, 135, 136, 137])
  })

  it('a page past the end: both run, the rows are discarded, DRF 404', async () => {
    const source = new HeldSource(137)
    source.release()
    await expect(paginator.paginate(source, getRequest(`${B}?page=15`))).rejects.toMatchObject({ status: 404, detail: 'Invalid page.' })
    expect(source.calls).toEqual(['count', 'slice(140,10)'])
  })

  it('not an integer, or below 1: 404 before any query (Django validates the number first)', async () => {
    for (const bad of ['abc', '0', '-2', '', '2.0']) {
      const source = new HeldSource(137)
      await expect(paginator.paginate(source, getRequest(`${B}?page=${bad}`))).rejects.toMatchObject({ status: 404 })
      expect(source.calls).toEqual([])
    }
  })

  it('a page whose first row lies beyond 2^53: 404 without a query', async () => {
    const source = new HeldSource(137)
    await expect(paginator.paginate(source, getRequest(`${B}?page=${'9'.repeat(40)}`))).rejects.toMatchObject({
      detail: 'Invalid page.',
    })
    expect(source.calls).toEqual([])
  })

  it('rows beyond the count (a row inserted between count and slice) are cut, as Django slices [bottom:count]', async () => {
    const grown: PageSource<Row> = { count: async () => 25, slice: async (o, l) => rows(30).slice(o, o + l), all: async () => rows(30) }
    const page = await paginator.paginate(grown, getRequest(`${B}?page=3`))
    expect(ids(page)).toEqual([21, 22, 23, 24, 25])
    expect(page?.next).toBeNull()
  })

  it('limit/offset: slice and count together; huge offsets never reach the source', async () => {
    const lo = new LimitOffsetPagination({ defaultLimit: 10 })
    const source = new HeldSource(137)
    const pending = lo.paginate(source, getRequest(`${B}?offset=130`))
    await settle()
    expect(source.calls).toEqual(['count', 'slice(130,10)'])
    source.release()
    const page = await pending
    expect([ids(page).length, page?.count, page?.next]).toEqual([7, 137, null])
    const far = new HeldSource(137)
    far.release()
    const beyond = await lo.paginate(far, getRequest(`${B}?offset=${'9'.repeat(30)}`))
    expect(far.calls).toEqual(['count'])
    expect([beyond?.items, beyond?.count]).toEqual([[], 137])
  })
})

/** Every page of `paginator` over `source`, JSON body and controls, or the 404 detail. */
async function answer(paginator: PageNumberPagination | LimitOffsetPagination, source: PageSource<Row>, query: string): Promise<unknown> {
  try {
    const page = await (paginator as PageNumberPagination).paginate(source, getRequest(B + query))
    if (page === null) return null
    const body = paginator.paginatedResponse(page as never, page.items).body
    return { body, controls: page.displayPageControls ? paginator.toHtml(page as never) : '' }
  } catch (error) {
    return { error: (error as { detail?: unknown }).detail }
  }
}

describe('capped count', () => {
  it('at or under the cap: every answer is the exact strategy answer (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 30 }),
        fc.oneof(fc.integer({ min: -1, max: 12 }).map(String), fc.constantFrom('last', 'x', '')),
        fc.integer({ min: 0, max: 70 }),
        async (n, size, extra, pageParam, offset) => {
          const source = new ArrayPageSource(rows(n))
          const exact = new PageNumberPagination({ pageSize: size })
          const capped = new PageNumberPagination({ pageSize: size, count: { capped: n + extra === 0 ? 1 : n + extra } })
          expect(await answer(capped, source, `?page=${pageParam}`)).toEqual(await answer(exact, source, `?page=${pageParam}`))
          const exactLo = new LimitOffsetPagination({ defaultLimit: size })
          const cappedLo = new LimitOffsetPagination({ defaultLimit: size, count: { capped: Math.max(1, n + extra) } })
          expect(await answer(cappedLo, source, `?offset=${offset}`)).toEqual(await answer(exactLo, source, `?offset=${offset}`))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('over the cap: count is the cap (a lower bound), more where a page proves more, exact on the final page', async () => {
    const p = new PageNumberPagination({ pageSize: 10, count: { capped: 50 } })
    const source = new ArrayPageSource(rows(137))
    const first = await p.paginate(source, getRequest(B))
    expect([first?.count, first?.next, first?.state.numPages, first?.state.countExact]).toEqual([50, `${B}?page=2`, 5, false])
    const fifth = await p.paginate(source, getRequest(`${B}?page=5`))
    expect([fifth?.count, fifth?.state.numPages]).toEqual([51, 6])
    const beyond = await p.paginate(source, getRequest(`${B}?page=9`))
    expect([ids(beyond)[0], beyond?.count, beyond?.next, beyond?.state.numPages]).toEqual([81, 91, `${B}?page=10`, 10])
    const final = await p.paginate(source, getRequest(`${B}?page=14`))
    expect([ids(final).length, final?.count, final?.next, final?.state.countExact, final?.state.numPages]).toEqual([7, 137, null, true, 14])
    await expect(p.paginate(source, getRequest(`${B}?page=15`))).rejects.toMatchObject({ detail: 'Invalid page.' })
  })

  it('over the cap, last is not a page number (404 with Django\'s "not an integer" reason), and reads no rows', async () => {
    const p = new PageNumberPagination({ pageSize: 10, count: { capped: 50 }, invalidPageMessage: '{page_number}: {message}' })
    const source = new HeldSource(137)
    source.release()
    await expect(p.paginate(source, getRequest(`${B}?page=last`))).rejects.toMatchObject({ detail: 'last: That page number is not an integer' })
    expect(source.calls).toEqual(['countAtMost(51)'])
  })

  it('asks the source for at most cap + 1 rows, together with cap + 1 rows of the page', async () => {
    const p = new PageNumberPagination({ pageSize: 10, count: { capped: 50 } })
    const source = new HeldSource(137)
    const pending = p.paginate(source, getRequest(`${B}?page=2`))
    await settle()
    expect(source.calls).toEqual(['countAtMost(51)', 'slice(10,11)'])
    source.release()
    expect(ids(await pending)).toEqual(rows(20).slice(10).map((r) => r.id))
  })

  it('a source without countAtMost: min(count, cap + 1)', async () => {
    const plain: PageSource<Row> = { count: async () => 137, slice: async (o, l) => rows(137).slice(o, o + l), all: async () => rows(137) }
    const page = await new PageNumberPagination({ pageSize: 10, count: { capped: 50 } }).paginate(plain, getRequest(B))
    expect(page?.count).toBe(50)
  })

  it('limit/offset over the cap', async () => {
    const lo = new LimitOffsetPagination({ defaultLimit: 10, count: { capped: 50 } })
    const source = new ArrayPageSource(rows(137))
    const cases: [string, number | null, string | null, number, boolean][] = [
      ['', 50, `${B}?limit=10&offset=10`, 50, false],
      ['?offset=45', 56, `${B}?limit=10&offset=55`, 56, false],
      ['?offset=130', 137, null, 137, true],
      ['?offset=200', 50, null, 50, false],
    ]
    for (const [query, count, next, known, exact] of cases) {
      const page = (await lo.paginate(source, getRequest(B + query))) as Page<Row, LimitOffsetState>
      expect([page.count, page.next, page.state.knownCount, page.state.countExact], query).toEqual([count, next, known, exact])
    }
  })
})

/** An array source with a fixed planner estimate. */
const estimating = (n: number, estimate: number | null): PageSource<Row> & { counted: number } => {
  const inner = new ArrayPageSource(rows(n))
  const source = {
    counted: 0,
    count: async () => {
      source.counted++
      return n
    },
    estimatedCount: async () => estimate,
    slice: (o: number, l: number) => inner.slice(o, l),
    all: () => inner.all(),
  }
  return source
}

describe('estimated count', () => {
  const p = new PageNumberPagination({ pageSize: 10, count: 'estimated' })

  it('reports the estimate, never below what the page proves, exact on the final page; never counts', async () => {
    const high = estimating(137, 500)
    const first = await p.paginate(high, getRequest(B))
    expect([first?.count, first?.next, first?.state.countExact]).toEqual([500, `${B}?page=2`, false])
    // The controls number only pages known to exist (this one and the next), not the estimate's.
    expect([first?.state.numPages, first?.displayPageControls]).toEqual([2, true])
    const final = await p.paginate(high, getRequest(`${B}?page=14`))
    expect([final?.count, final?.next, final?.state.countExact]).toEqual([137, null, true])
    await expect(p.paginate(high, getRequest(`${B}?page=15`))).rejects.toMatchObject({ status: 404, detail: 'Invalid page.' })
    const low = estimating(137, 3)
    const third = await p.paginate(low, getRequest(`${B}?page=3`))
    expect([third?.count, third?.state.numPages]).toEqual([31, 4])
    expect(high.counted + low.counted).toBe(0)
    await expect(p.paginate(high, getRequest(`${B}?page=last`))).rejects.toMatchObject({ detail: 'Invalid page.' })
  })

  it('a source without an estimate (SQLite, arrays) counts exactly: the exact answers, last included', async () => {
    const exact = new PageNumberPagination({ pageSize: 10 })
    for (const source of [estimating(137, null), new ArrayPageSource(rows(137))]) {
      for (const q of ['', '?page=3', '?page=14', '?page=last', '?page=15']) {
        expect(await answer(p, source, q), q).toEqual(await answer(exact, source, q))
      }
    }
  })

  it('limit/offset: the estimate as a lower-bounded count', async () => {
    const lo = new LimitOffsetPagination({ defaultLimit: 10, count: 'estimated' })
    const page = await lo.paginate(estimating(137, 90), getRequest(`${B}?offset=100`))
    expect([page?.count, page?.next, page?.state.knownCount]).toEqual([111, `${B}?limit=10&offset=110`, 111])
  })
})

describe("count: 'none'", () => {
  const p = new PageNumberPagination({ pageSize: 10, count: 'none' })

  it('never counts; count is null; next from one row more; page 1 of nothing is a page', async () => {
    const source = new HeldSource(137)
    const first = await p.paginate(source, getRequest(B))
    expect(source.calls).toEqual(['slice(0,11)'])
    expect([first?.count, first?.next, first?.previous, first?.state.numPages, first?.state.countExact]).toEqual([null, `${B}?page=2`, null, 2, false])
    expect(JSON.stringify(p.paginatedResponse(first as Page<unknown, PageNumberState>, []).body)).toBe(
      `{"count":null,"next":"${B}?page=2","previous":null,"results":[]}`,
    )
    const final = await p.paginate(source, getRequest(`${B}?page=14`))
    expect([ids(final).length, final?.count, final?.next, final?.previous]).toEqual([7, null, null, `${B}?page=13`])
    const empty = await p.paginate(new ArrayPageSource<Row>([]), getRequest(B))
    expect([empty?.items, empty?.count, empty?.next, empty?.displayPageControls]).toEqual([[], null, null, false])
  })

  it('a page with no rows past page 1 is 404; last is 404 without a query', async () => {
    const source = new HeldSource(137)
    await expect(p.paginate(source, getRequest(`${B}?page=15`))).rejects.toMatchObject({ detail: 'Invalid page.' })
    const custom = new PageNumberPagination({ pageSize: 10, count: 'none', invalidPageMessage: '{message}' })
    await expect(custom.paginate(source, getRequest(`${B}?page=last`))).rejects.toMatchObject({ detail: 'That page number is not an integer' })
    await expect(custom.paginate(source, getRequest(`${B}?page=20`))).rejects.toMatchObject({ detail: 'That page contains no results' })
    expect(source.calls).toEqual(['slice(140,11)', 'slice(190,11)'])
  })

  it('HTML controls number the pages known to exist: up to the next one', async () => {
    const page = await p.paginate(new ArrayPageSource(rows(137)), getRequest(`${B}?page=5`))
    if (page === null) throw new Error('no page')
    expect(p.htmlContext(page).pageLinks?.map((l) => (l.isBreak ? '…' : l.number))).toEqual([1, '…', 4, 5, 6])
  })

  it('a walk along next visits every row once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 1, max: 15 }), async (n, size) => {
        for (const count of ['none', 'estimated', { capped: 7 }] as const) {
          const walker = new PageNumberPagination({ pageSize: size, count })
          const source = estimating(n, 3)
          const seen: number[] = []
          let url: string | null = B
          while (url !== null) {
            const page: Page<Row, PageNumberState> | null = await walker.paginate(source, getRequest(url))
            seen.push(...ids(page))
            if (page?.count !== null && page?.count !== undefined) expect(page.count).toBeGreaterThanOrEqual(seen.length)
            if (page?.next === null && count !== 'none') expect(page.count).toBe(n)
            url = page?.next ?? null
          }
          expect(seen).toEqual(rows(n).map((r) => r.id))
        }
      }),
      { numRuns: 60 },
    )
  })

  it('limit/offset: count null, next from one row more, past the end is empty', async () => {
    const lo = new LimitOffsetPagination({ defaultLimit: 10, count: 'none' })
    const source = new ArrayPageSource(rows(137))
    const mid = await lo.paginate(source, getRequest(`${B}?offset=20`))
    expect([mid?.count, mid?.next, mid?.previous, mid?.state.knownCount]).toEqual([null, `${B}?limit=10&offset=30`, `${B}?limit=10&offset=10`, 31])
    const end = await lo.paginate(source, getRequest(`${B}?offset=130`))
    expect([ids(end).length, end?.count, end?.next]).toEqual([7, null, null])
    const past = await lo.paginate(source, getRequest(`${B}?offset=500`))
    expect([past?.items, past?.count, past?.next, past?.previous]).toEqual([[], null, null, `${B}?limit=10&offset=490`])
  })

  it('LinkHeaderPagination leaves X-Total-Count out rather than claiming 0', async () => {
    const link = new LinkHeaderPagination({ pageSize: 10, count: 'none' })
    const page = await link.paginate(new ArrayPageSource(rows(30)), getRequest(B))
    if (page === null) throw new Error('no page')
    const headers = link.paginatedResponse(page, page.items).headers.map(([name]) => name.toLowerCase())
    expect(headers).not.toContain('x-total-count')
    expect(headers).toContain('link')
    const counted = new LinkHeaderPagination({ pageSize: 10 })
    const exactPage = await counted.paginate(new ArrayPageSource(rows(30)), getRequest(B))
    if (exactPage === null) throw new Error('no page')
    expect(counted.paginatedResponse(exactPage, []).headers).toContainEqual(['X-Total-Count', '30'])
  })
})

describe('cached count', () => {
  /** A source counting `n()` rows under `key`, recording each real count. */
  const keyed = (key: string | null, n: () => number): PageSource<Row> & { counts: number } => {
    const source = {
      counts: 0,
      count: async () => {
        source.counts++
        return n()
      },
      countKey: () => key,
      slice: async (o: number, l: number) => rows(n()).slice(o, o + l),
      all: async () => rows(n()),
    }
    return source
  }

  it('reuses a count for cachedMs per key, then counts again (injected clock)', async () => {
    let now = 1_000
    let size = 137
    const p = new PageNumberPagination({ pageSize: 10, count: { cachedMs: 5_000, now: () => now } })
    const a = keyed('articles', () => size)
    expect((await p.paginate(a, getRequest(B)))?.count).toBe(137)
    size = 150
    now += 4_999
    const stale = await p.paginate(a, getRequest(`${B}?page=14`))
    // Within the TTL the answer is exactly the exact strategy's for 137 rows (last page cut at 137).
    expect([stale?.count, ids(stale).length, stale?.next]).toEqual([137, 7, null])
    expect(a.counts).toBe(1)
    now += 1
    expect((await p.paginate(a, getRequest(B)))?.count).toBe(150)
    expect(a.counts).toBe(2)
  })

  it('keys apart: another key (another filter or parameter) has its own count; no key, no caching', async () => {
    const p = new PageNumberPagination({ pageSize: 10, count: { cachedMs: 60_000, now: () => 0 } })
    const alice = keyed('author=alice', () => 69)
    const bob = keyed('author=bob', () => 68)
    expect((await p.paginate(alice, getRequest(B)))?.count).toBe(69)
    expect((await p.paginate(bob, getRequest(B)))?.count).toBe(68)
    await p.paginate(alice, getRequest(B))
    expect([alice.counts, bob.counts]).toEqual([1, 1])
    const unkeyed = keyed(null, () => 5)
    await p.paginate(unkeyed, getRequest(B))
    await p.paginate(unkeyed, getRequest(B))
    expect(unkeyed.counts).toBe(2)
  })

  it('holds at most maxEntries counts, evicting the least recently used', async () => {
    const p = new LimitOffsetPagination({ defaultLimit: 10, count: { cachedMs: 60_000, maxEntries: 2, now: () => 0 } })
    const [a, b, c] = ['a', 'b', 'c'].map((k) => keyed(k, () => 3))
    if (a === undefined || b === undefined || c === undefined) throw new Error('sources')
    for (const source of [a, b, a, c, a, b]) await p.paginate(source, getRequest(B))
    // a b a → {b, a}; c evicts b → {a, c}; a hits → {c, a}; b is counted again.
    expect([a.counts, b.counts, c.counts]).toEqual([1, 2, 1])
  })
})

describe('CountCache', () => {
  it('concurrent misses share one count; a failed count is forgotten', async () => {
    const cache = new CountCache({ ttlMs: 1_000, now: () => 0 })
    const gate = deferred<number>()
    let loads = 0
    const load = (): Promise<number> => {
      loads++
      return gate.promise
    }
    const both = Promise.all([cache.get('k', load), cache.get('k', load)])
    gate.resolve(7)
    expect(await both).toEqual([7, 7])
    expect(loads).toBe(1)
    await expect(cache.get('bad', async () => Promise.reject(new Error('down')))).rejects.toThrow('down')
    await settle()
    expect(await cache.get('bad', async () => 3)).toBe(3)
  })

  it('memory stays bounded whatever the keys: at most maxEntries digests', async () => {
    const cache = new CountCache({ ttlMs: 1_000, maxEntries: 3, now: () => 0 })
    for (let i = 0; i < 50; i++) await cache.get(`select ${'x'.repeat(10_000)} ${i}`, async () => i)
    expect(cache.size).toBe(3)
    expect(await cache.get(`select ${'x'.repeat(10_000)} 49`, async () => -1)).toBe(49)
    cache.clear()
    expect(cache.size).toBe(0)
  })

  it('rejects a non-positive TTL or bound', () => {
    expect(() => new CountCache({ ttlMs: 0 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_SETTING' }))
    expect(() => new CountCache({ ttlMs: 5, maxEntries: 0 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_SETTING' }))
  })
})
