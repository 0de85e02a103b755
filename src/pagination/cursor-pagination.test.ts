import { TEST_SECRET } from '../../test/helpers/secrets.js'
import { describe, expect, it } from 'vitest'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { ArrayPageSource } from './array-page-source.js'
import { ConfigurationError } from '../core/errors.js'
import { CursorPagination, parseOrdering, type CursorPaginationOptions } from './cursor-pagination.js'
import type { Page, PageSource } from './paginator.js'

function getRequest(url: string): ApiRequest {
  return createApiRequest({ method: 'GET', url: new URL(url), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

interface Row {
  id: number
  created: number
}
// DRF's own cursor test vector (drf-behaviors §14.7): heavy ties on `created`.
const CREATED = [1, 1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 9, 9, 9, 9, 9, 9]
const ROWS: Row[] = CREATED.map((created, i) => ({ id: i + 1, created }))
const BASE = 'http://testserver/cp/'

async function walk<T = Row>(p: CursorPagination, source: PageSource<T>, url: string, dir: 'next' | 'previous'): Promise<Page<T>[]> {
  const pages: Page<T>[] = []
  let current: string | null = url
  while (current !== null) {
    const page: Page<T> | null = await p.paginate(source, getRequest(current))
    if (page === null) throw new Error('pagination off')
    pages.push(page)
    current = page[dir]
    if (pages.length > 100) throw new Error('loop')
  }
  return pages
}
const idsOf = (pages: Page<{ id: number }>[]): number[][] => pages.map((p) => p.items.map((r) => r.id))

describe('CursorPagination over DRF’s tie-heavy test vector', () => {
  const source = new ArrayPageSource(ROWS)
  const p = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 5 })

  it('forward: every row once, in (created, id) order; back: the same pages', async () => {
    const forward = await walk(p, source, BASE, 'next')
    expect(idsOf(forward).flat()).toEqual(ROWS.map((r) => r.id))
    expect(idsOf(forward)).toHaveLength(6)
    const last = forward[forward.length - 1]
    expect(last?.next).toBeNull()
    // DRF shows [4,4,4,5,6] as the page before [7,7,7,7,7]; the keyset never shifts pages.
    const back = await walk(p, source, forward[forward.length - 1]?.previous ?? '', 'previous')
    expect(idsOf(back)).toEqual(idsOf(forward).slice(0, -1).reverse())
    expect(back[back.length - 1]?.previous).toBeNull()
  })

  it('changing direction inside a tie neither repeats nor skips (DRF’s paging artifacts)', async () => {
    const forward = await walk(p, source, BASE, 'next')
    // From each page, go back one page and forward again: the same page comes back.
    for (let i = 1; i < forward.length; i++) {
      const page = forward[i]
      if (page?.previous == null) throw new Error('no previous')
      const prev = await p.paginate(source, getRequest(page.previous))
      expect(prev?.items.map((r) => r.id)).toEqual(forward[i - 1]?.items.map((r) => r.id))
      const again = await p.paginate(source, getRequest(prev?.next ?? ''))
      expect(again?.items.map((r) => r.id)).toEqual(page.items.map((r) => r.id))
    }
  })

  it('descending ordering: newest first, ties by id; page sizes 0 and -5 fall back', async () => {
    const desc = new CursorPagination({ secret: TEST_SECRET, ordering: '-created', pageSize: 3, pageSizeQueryParam: 'page_size', maxPageSize: 20 })
    const first = await desc.paginate(source, getRequest(BASE))
    expect(first?.items.map((r) => r.id)).toEqual([25, 26, 27])
    for (const raw of ['0', '-5', 'x']) expect((await desc.paginate(source, getRequest(`${BASE}?page_size=${raw}`)))?.items).toHaveLength(3)
    const big = await desc.paginate(source, getRequest(`${BASE}?page_size=1000`))
    expect(big?.items).toHaveLength(20)
    expect(big?.next).toContain('page_size=1000')
    const all = await walk(desc, source, `${BASE}?page_size=7`, 'next')
    expect(idsOf(all).flat()).toEqual([...ROWS].sort((a, b) => b.created - a.created || a.id - b.id).map((r) => r.id))
  })

  it('more than 1000 tied rows page correctly (no offset cutoff)', async () => {
    const ties = new ArrayPageSource(Array.from({ length: 2500 }, (_, i) => ({ id: i + 1, created: 1 })))
    const big = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 100 })
    const pages = await walk(big, ties, BASE, 'next')
    expect(idsOf(pages).flat()).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1))
  })

  it('mixed directions (-score, id)', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, score: ((i + 1) * 7) % 10 }))
    const s = new CursorPagination({ secret: TEST_SECRET, ordering: ['-score', 'id'], pageSize: 7 })
    const pages = await walk(s, new ArrayPageSource(rows), BASE, 'next')
    expect(pages.flatMap((pg) => pg.items.map((r) => r.id))).toEqual([...rows].sort((a, b) => b.score - a.score || a.id - b.id).map((r) => r.id))
  })

  it('invalid, tampered, foreign and wrong-type cursors: 404 "Invalid cursor"; empty cursor is page 1', async () => {
    const next = (await p.paginate(source, getRequest(BASE)))?.next ?? ''
    const cursor = new URL(next).searchParams.get('cursor') ?? ''
    const other = new CursorPagination({ secret: TEST_SECRET, ordering: '-created', pageSize: 5 })
    const wrongType = p.encode({ reverse: false, key: ['abc', 1] })
    for (const bad of ['x', `${cursor}x`, other.encode({ reverse: false, key: [1, 1] }), wrongType]) {
      await expect(p.paginate(source, getRequest(`${BASE}?cursor=${bad}`))).rejects.toMatchObject({ status: 404, detail: 'Invalid cursor' })
    }
    // `bz01` is DRF's (unsigned) cursor `o=5`: invalid by default, honoured with drfCursors: true.
    await expect(p.paginate(source, getRequest(`${BASE}?cursor=bz01`))).rejects.toMatchObject({ status: 404, detail: 'Invalid cursor' })
    const migrating = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 5, drfCursors: true })
    expect((await migrating.paginate(source, getRequest(`${BASE}?cursor=bz01`)))?.items.map((r) => r.id)).toEqual([6, 7, 8, 9, 10])
    expect((await p.paginate(source, getRequest(`${BASE}?cursor=`)))?.items.map((r) => r.id)).toEqual([1, 2, 3, 4, 5])
  })

  it('a row deleted under the cursor does not break paging (DRF #6504)', async () => {
    const rows = [...ROWS]
    const mutable = new ArrayPageSource(rows)
    const first = await p.paginate(mutable, getRequest(BASE))
    const gone = rows.findIndex((r) => r.id === 5)
    rows.splice(gone, 1)
    const second = await p.paginate(new ArrayPageSource(rows), getRequest(first?.next ?? ''))
    expect(second?.items.map((r) => r.id)).toEqual([6, 7, 8, 9, 10])
    const back = await p.paginate(new ArrayPageSource(rows), getRequest(second?.previous ?? ''))
    expect(back?.items.map((r) => r.id)).toEqual([1, 2, 3, 4])
  })

  it('body has no count; HTML context has only previous/next; controls off with template null', async () => {
    const page = await p.paginate(source, getRequest(BASE))
    if (page === null) throw new Error('no page')
    expect(Object.keys(p.paginatedResponse(page, []).body as object)).toEqual(['next', 'previous', 'results'])
    expect(p.htmlContext(page)).toEqual({ previousUrl: null, nextUrl: page.next })
    expect(p.toHtml(page)).toContain('<li class="previous disabled">')
    const off = new CursorPagination({ secret: TEST_SECRET, ordering: 'created', pageSize: 5, template: null })
    expect((await off.paginate(source, getRequest(BASE)))?.displayPageControls).toBe(false)
  })

  it('parseOrdering appends the unique tiebreaker once and rejects lookups', () => {
    expect(parseOrdering('-created', 'id')).toEqual([
      { field: 'created', descending: true },
      { field: 'id', descending: false },
    ])
    expect(parseOrdering(['-score', 'id'], 'id')).toHaveLength(2)
    expect(parseOrdering('created', null)).toHaveLength(1)
    expect(() => parseOrdering('author__name', 'id')).toThrow(/invalid ordering/)
    expect(() => parseOrdering([], 'id')).toThrow(/empty/)
  })

  it('a source without seek() is a configuration error', async () => {
    const plain: PageSource<Row> = { count: async () => 0, slice: async () => [], all: async () => [] }
    await expect(p.paginate(plain, getRequest(BASE))).rejects.toThrow(/seek/)
  })
})

describe('CursorPagination secret', () => {
  it('has no built-in default: no secret, an empty list or a short one is a ConfigurationError naming the option', () => {
    expect(() => new CursorPagination({} as unknown as CursorPaginationOptions)).toThrow(/"secret".*no built-in default/)
    expect(() => new CursorPagination({ secret: [] })).toThrow(ConfigurationError)
    expect(() => new CursorPagination({ secret: 'too-short' })).toThrow(/at least 16 bytes/)
    expect(() => new CursorPagination({ secret: [TEST_SECRET, 'short'] })).toThrow(/at least 16 bytes/)
  })

  it('rotates keys: the first secret signs, every one verifies', () => {
    const old = new CursorPagination({ secret: 'the-old-secret-0123456789', ordering: 'created' })
    const rotated = new CursorPagination({ secret: ['the-new-secret-0123456789', 'the-old-secret-0123456789'], ordering: 'created' })
    const retired = new CursorPagination({ secret: 'the-new-secret-0123456789', ordering: 'created' })
    const cursor = { reverse: false, key: [new Date('2024-01-01T00:00:00Z'), 3] }
    const issuedBefore = old.encode(cursor)
    expect(rotated.decode(issuedBefore)).toEqual(cursor)
    expect(retired.decode(issuedBefore)).toBeNull()
    expect(retired.decode(rotated.encode(cursor))).toEqual(cursor)
  })
})
