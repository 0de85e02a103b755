import { describe, expect, it } from 'vitest'
import { ArrayPageSource } from './array-page-source.js'
import { LimitOffsetPagination } from './limit-offset-pagination.js'
import { PageNumberPagination, type PageNumberState } from './page-number-pagination.js'
import type { Page } from './paginator.js'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request/request-factory.js'

function getRequest(url: string): ApiRequest {
  return createApiRequest({ method: 'GET', url: new URL(url), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

const items = (n: number): { id: number }[] => Array.from({ length: n }, (_, i) => ({ id: i + 1 }))
const ids = (page: Page<{ id: number }> | null): number[] => (page?.items ?? []).map((x) => x.id)
const BASE = 'http://testserver/pn/'

describe('PageNumberPagination', () => {
  const paginator = new PageNumberPagination({ pageSize: 5 })
  const source = new ArrayPageSource(items(100))

  it('slices pages and links them (page 1 drops the parameter)', async () => {
    const page = await paginator.paginate(source, getRequest(`${BASE}?page=2`))
    expect(ids(page)).toEqual([6, 7, 8, 9, 10])
    expect(page?.count).toBe(100)
    expect(page?.previous).toBe(BASE)
    expect(page?.next).toBe(`${BASE}?page=3`)
    const last = await paginator.paginate(source, getRequest(`${BASE}?page=last`))
    expect(ids(last)).toEqual([96, 97, 98, 99, 100])
    expect([last?.next, last?.previous]).toEqual([null, `${BASE}?page=19`])
  })

  it('404 "Invalid page." for everything Django rejects; DRF 3.14 treats ?page= as invalid', async () => {
    for (const bad of ['0', '-1', 'abc', '2.0', '21', 'LAST', '', '1e1']) {
      await expect(paginator.paginate(source, getRequest(`${BASE}?page=${bad}`))).rejects.toMatchObject({ status: 404, detail: 'Invalid page.' })
    }
    for (const [raw, n] of [['%202%20', 6], ['%2B2', 6], ['1_0', 46], ['%D9%A3', 11]] as const) {
      expect(ids(await paginator.paginate(source, getRequest(`${BASE}?page=${raw}`)))[0]).toBe(n)
    }
  })

  it('custom invalid_page_message placeholders', async () => {
    const custom = new PageNumberPagination({ pageSize: 5, invalidPageMessage: 'Bad {page_number}: {message}' })
    await expect(custom.paginate(source, getRequest(`${BASE}?page=x`))).rejects.toMatchObject({ detail: 'Bad x: That page number is not an integer' })
    await expect(custom.paginate(source, getRequest(`${BASE}?page=99`))).rejects.toMatchObject({ detail: 'Bad 99: That page contains no results' })
  })

  it('empty collection: page 1 with count 0; page 2 is 404', async () => {
    const empty = new ArrayPageSource<{ id: number }>([])
    const page = await paginator.paginate(empty, getRequest(BASE))
    expect([page?.count, page?.next, page?.previous, page?.items]).toEqual([0, null, null, []])
    expect((await paginator.paginate(empty, getRequest(`${BASE}?page=last`)))?.count).toBe(0)
    await expect(paginator.paginate(empty, getRequest(`${BASE}?page=2`))).rejects.toMatchObject({ status: 404 })
    expect(page?.displayPageControls).toBe(false)
  })

  it('client page size: strict, clamped, silent fallback, raw value kept in links', async () => {
    const p = new PageNumberPagination({ pageSize: 5, pageSizeQueryParam: 'page_size', maxPageSize: 20 })
    expect(ids(await p.paginate(source, getRequest(`${BASE}?page_size=1000`)))).toHaveLength(20)
    const fallback = await p.paginate(source, getRequest(`${BASE}?page_size=abc`))
    expect(ids(fallback)).toHaveLength(5)
    expect(fallback?.next).toBe(`${BASE}?page=2&page_size=abc`)
    for (const raw of ['0', '-3', '']) expect(ids(await p.paginate(source, getRequest(`${BASE}?page_size=${raw}`)))).toHaveLength(5)
    // Without page_size_query_param the client's value is ignored.
    expect(ids(await paginator.paginate(source, getRequest(`${BASE}?page_size=50`)))).toHaveLength(5)
  })

  it('no page size anywhere: pagination is off (null); the view default applies otherwise', async () => {
    const unsized = new PageNumberPagination()
    expect(await unsized.paginate(source, getRequest(BASE))).toBeNull()
    expect(ids(await unsized.paginate(source, getRequest(BASE), { defaultPageSize: 3 }))).toEqual([1, 2, 3])
  })

  it('HTML controls: numbers with breaks, active page, template off, global replacement', async () => {
    const page = await paginator.paginate(source, getRequest(`${BASE}?page=5`))
    if (page === null) throw new Error('no page')
    const ctx = paginator.htmlContext(page)
    expect(ctx.pageLinks?.map((l) => (l.isBreak ? '…' : l.number))).toEqual([1, '…', 4, 5, 6, '…', 20])
    expect(ctx.pageLinks?.[0]?.url).toBe(BASE)
    expect(ctx.pageLinks?.find((l) => l.isActive)?.number).toBe(5)
    const html = paginator.toHtml(page)
    expect(html).toContain('<ul class="pagination">')
    expect(html).toContain(`<li class="active"><a href="${BASE}?page=5">5</a></li>`)
    const off = new PageNumberPagination({ pageSize: 5, template: null })
    const offPage = await off.paginate(source, getRequest(BASE))
    expect(offPage?.displayPageControls).toBe(false)
    expect(offPage === null ? 'x' : off.toHtml(offPage)).toBe('')
    const custom = new PageNumberPagination({ pageSize: 5, template: (c) => `<p>${c.pageLinks?.length}</p>` })
    const customPage = await custom.paginate(source, getRequest(BASE))
    expect(customPage === null ? '' : custom.toHtml(customPage)).toBe('<p>5</p>')
    // An API's replacement of the named template applies; a paginator's own function wins over it.
    expect(paginator.toHtml(page, { numbers: () => '<b>api</b>' })).toBe('<b>api</b>')
    expect(paginator.toHtml(page, { previousNext: () => '<b>other</b>' })).toContain('<ul class="pagination">')
    expect(customPage === null ? '' : custom.toHtml(customPage, { numbers: () => '<b>api</b>' })).toBe('<p>5</p>')
    expect(paginator.toHtml(page)).toContain('<ul class="pagination">')
  })

  it('response body in DRF key order', () => {
    const page: Page<unknown, PageNumberState> = { items: [], count: 3, next: null, previous: 'p', displayPageControls: false, state: { pageNumber: 2, numPages: 2, pageSize: 2, url: 'u', countExact: true } }
    const res = paginator.paginatedResponse(page, [1])
    expect(JSON.stringify(res.body)).toBe('{"count":3,"next":null,"previous":"p","results":[1]}')
  })
})

describe('LimitOffsetPagination (count 100, default_limit 10, max_limit 15: drf-behaviors §13.4)', () => {
  const paginator = new LimitOffsetPagination({ defaultLimit: 10, maxLimit: 15 })
  const source = new ArrayPageSource(items(100))
  const B = 'http://testserver/lo/'
  const cases: [string, number[], string | null, string | null][] = [
    ['', [1, 10], `${B}?limit=10&offset=10`, null],
    ['?limit=5&offset=1', [2, 6], `${B}?limit=5&offset=6`, `${B}?limit=5`],
    ['?limit=5&offset=3', [4, 8], `${B}?limit=5&offset=8`, `${B}?limit=5`],
    ['?limit=5&offset=95', [96, 100], null, `${B}?limit=5&offset=90`],
    ['?limit=5&offset=96', [97, 100], null, `${B}?limit=5&offset=91`],
    ['?limit=5&offset=100', [], null, `${B}?limit=5&offset=95`],
    ['?limit=5&offset=1000', [], null, `${B}?limit=5&offset=995`],
    ['?limit=0', [1, 10], `${B}?limit=10&offset=10`, null],
    ['?limit=-1', [1, 10], `${B}?limit=10&offset=10`, null],
    ['?limit=abc', [1, 10], `${B}?limit=10&offset=10`, null],
    ['?limit=100', [1, 15], `${B}?limit=15&offset=15`, null],
    ['?offset=-5', [1, 10], `${B}?limit=10&offset=10`, null],
    ['?offset=abc', [1, 10], `${B}?limit=10&offset=10`, null],
    ['?limit=5&offset=7&x=1', [8, 12], `${B}?limit=5&offset=12&x=1`, `${B}?limit=5&offset=2&x=1`],
  ]
  for (const [query, range, next, previous] of cases) {
    it(`${query || '/'}`, async () => {
      const page = await paginator.paginate(source, getRequest(B + query))
      const expected = range.length === 0 ? [] : Array.from({ length: (range[1] ?? 0) - (range[0] ?? 0) + 1 }, (_, i) => (range[0] ?? 0) + i)
      expect(ids(page)).toEqual(expected)
      expect([page?.next, page?.previous, page?.count]).toEqual([next, previous, 100])
    })
  }

  it('empty set', async () => {
    const empty = new ArrayPageSource<{ id: number }>([])
    const a = await paginator.paginate(empty, getRequest(B))
    expect([a?.count, a?.next, a?.previous]).toEqual([0, null, null])
    const b = await paginator.paginate(empty, getRequest(`${B}?offset=5`))
    expect([b?.next, b?.previous]).toEqual([null, `${B}?limit=10`])
  })

  it('page links relative to the current offset (§15.3)', async () => {
    const page = await paginator.paginate(source, getRequest(`${B}?limit=5&offset=1`))
    if (page === null) throw new Error('no page')
    const links = paginator.htmlContext(page).pageLinks ?? []
    expect(links.map((l) => (l.isBreak ? '…' : l.number))).toEqual([1, 2, 3, '…', 21])
    expect(links.map((l) => l.url)).toEqual([`${B}?limit=5`, `${B}?limit=5&offset=1`, `${B}?limit=5&offset=6`, null, `${B}?limit=5&offset=96`])
    const beyond = await paginator.paginate(source, getRequest(`${B}?offset=500`))
    if (beyond === null) throw new Error('no page')
    const odd = paginator.htmlContext(beyond).pageLinks ?? []
    expect(odd.map((l) => (l.isBreak ? '…' : l.number))).toEqual([1, '…', 8, 9, 10])
    expect(odd.find((l) => l.isActive)?.url).toBe(`${B}?offset=500`)
  })

  it('no default limit: off unless the client sends one', async () => {
    const p = new LimitOffsetPagination()
    expect(await p.paginate(source, getRequest(B))).toBeNull()
    expect(ids(await p.paginate(source, getRequest(`${B}?limit=3`)))).toEqual([1, 2, 3])
  })
})
