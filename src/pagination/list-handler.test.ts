import { TEST_SECRET } from '../../test/helpers/secrets.js'
import { describe, expect, it } from 'vitest'
import { createApi } from '../core/api.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { ArrayPageSource } from './array-page-source.js'
import { CursorPagination } from './cursor-pagination.js'
import { listHandler, paginatedList } from './list-handler.js'
import { PageNumberPagination } from './page-number-pagination.js'

function get(url: string, accept: string | null = null): ReturnType<typeof createApiRequest> {
  return createApiRequest({
    method: 'GET',
    url: new URL(url),
    headers: { get: (name: string) => (name.toLowerCase() === 'accept' ? accept : null) },
    remoteAddress: null,
    readBody: async () => null,
  })
}

const rows = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, created: i }))
const handler = listHandler({ source: () => new ArrayPageSource(rows), serialize: (r) => ({ id: r.id }) })

describe('listHandler', () => {
  it('applies the global style and page size', async () => {
    const api = createApi({ pagination: new PageNumberPagination(), pageSize: 5 })
    const res = await api.view({ handlers: { GET: handler } }).handle(get('http://x/items/?page=3'))
    expect(res.body).toEqual({ count: 12, next: null, previous: 'http://x/items/?page=2', results: [{ id: 11 }, { id: 12 }] })
  })

  it('a per-view style overrides the global one; pagination null gives the plain array', async () => {
    const api = createApi({ pagination: new PageNumberPagination(), pageSize: 5 })
    const cursor = await api.view({ pagination: new CursorPagination({ secret: TEST_SECRET, ordering: 'created' }), handlers: { GET: handler } }).handle(get('http://x/items/'))
    expect(Object.keys(cursor.body as object)).toEqual(['next', 'previous', 'results'])
    const off = await api.view({ pagination: null, handlers: { GET: handler } }).handle(get('http://x/items/'))
    expect(off.body).toHaveLength(12)
    // A style with no page size anywhere would answer every row: DRF does (with warning W001),
    // gatehouse refuses the view. pageSize: null asks for the whole list on purpose.
    expect(() => createApi({ pagination: new PageNumberPagination() }).view({ name: 'Items', handlers: { GET: handler } })).toThrow(
      /view "Items": PageNumberPagination has no page size, so it would answer every row: .*pageSize setting \(DRF's PAGE_SIZE\)/,
    )
    expect(() => createApi().view({ pagination: new CursorPagination({ secret: TEST_SECRET, ordering: 'created' }), handlers: { GET: handler } })).toThrow(/CursorPagination has no page size/)
    const unsized = await createApi({ pagination: new PageNumberPagination({ pageSize: null }) }).view({ handlers: { GET: handler } }).handle(get('http://x/items/'))
    expect(unsized.body).toHaveLength(12)
    const routeSized = await createApi({ pagination: new PageNumberPagination() }).view({ pageSize: 5, handlers: { GET: handler } }).handle(get('http://x/items/'))
    expect((routeSized.body as { results: unknown[] }).results).toHaveLength(5)
  })

  it('serves an HTML page with the controls when the view renders html', async () => {
    const api = createApi({ pagination: new PageNumberPagination(), pageSize: 5 })
    const view = api.view({ name: 'Items', formats: ['json', 'html'], handlers: { GET: handler } })
    const res = await view.handle(get('http://x/items/?page=2', 'text/html,application/xhtml+xml,*/*;q=0.8'))
    expect(res.headers).toContainEqual(['Content-Type', 'text/html; charset=utf-8'])
    expect(String(res.body)).toContain('<ul class="pagination">')
    expect(String(res.body)).toContain('<title>Items</title>')
    expect(String(res.body)).toContain('&#34;id&#34;: 6')
    const json = await view.handle(get('http://x/items/?page=2'))
    expect(json.headers).toContainEqual(['Content-Type', 'application/json'])
    // Invalid pages stay DRF errors.
    expect((await view.handle(get('http://x/items/?page=9'))).status).toBe(404)
  })

  it('escapes data on the HTML page', async () => {
    const api = createApi({ pagination: new PageNumberPagination(), pageSize: 5 })
    const evil = listHandler({ source: () => new ArrayPageSource([{ id: 1, title: '<script>alert(1)</script>' }]), serialize: (r) => r })
    const res = await api.view({ formats: ['json', 'html'], handlers: { GET: evil } }).handle(get('http://x/items/?q=%3Cscript%3E', 'text/html'))
    expect(String(res.body)).not.toContain('<script>')
  })
})

describe('htmlTemplates', () => {
  const html = (api: ReturnType<typeof createApi>, options: Parameters<ReturnType<typeof createApi>['view']>[0]): Promise<string> =>
    Promise.resolve(api.view(options).handle(get('http://x/items/?page=2', 'text/html'))).then((res) => String(res.body))

  it('replace a named template per API and per view, without touching another API in the same process', async () => {
    const pagination = new PageNumberPagination({ pageSize: 5 })
    const branded = createApi({ pagination, htmlTemplates: { numbers: (ctx) => `<nav id="api">${ctx.pageLinks?.length}</nav>` } })
    const plain = createApi({ pagination })
    const view = { formats: ['json', 'html'] as const, handlers: { GET: handler } }
    expect(await html(branded, view)).toContain('<nav id="api">3</nav>')
    expect(await html(plain, view)).toContain('<ul class="pagination">')
    expect(await html(plain, view)).not.toContain('id="api"')
    const perView = await html(plain, { ...view, htmlTemplates: { numbers: () => '<nav id="view"></nav>' } })
    expect(perView).toContain('<nav id="view"></nav>')
  })

  it('are checked when the API or view is declared', () => {
    expect(() => createApi({ htmlTemplates: { pager: () => '' } as never })).toThrow(/htmlTemplates/)
    expect(() => createApi().view({ htmlTemplates: { numbers: 'x' } as never, handlers: { GET: handler } })).toThrow(/htmlTemplates/)
  })
})

describe('listHandler fields', () => {
  const source = () => new ArrayPageSource(rows)
  const cursor = (ordering: string): CursorPagination => new CursorPagination({ secret: TEST_SECRET, ordering, pageSize: 5 })

  it('a cursor ordering the source does not declare stops the view declaration, naming the view and field', () => {
    const list = listHandler({ source, serialize: (r) => r, fields: ['id', 'created'] })
    const api = createApi()
    expect(() => api.view({ name: 'Items', pagination: cursor('-score'), handlers: { GET: list } })).toThrow(
      /view "Items": CursorPagination orders by "score", which the source does not declare \(its fields: id, created\)/,
    )
    // The API-wide style is checked too, as each view resolves it.
    expect(() => createApi({ pagination: cursor('title') }).view({ handlers: { GET: list } })).toThrow(/"title"/)
    expect(api.view({ pagination: cursor('-created'), handlers: { GET: list } })).toBeDefined()
    expect(api.view({ pagination: new PageNumberPagination({ pageSize: 5 }), handlers: { GET: list } })).toBeDefined()
  })

  it('without fields nothing is checked at declaration (the source answers at request time)', () => {
    const list = listHandler({ source, serialize: (r) => r })
    expect(createApi().view({ pagination: cursor('-score'), handlers: { GET: list } })).toBeDefined()
  })
})

describe('paginatedList with a paginator of its own (own routes)', () => {
  it('refuses a paginator with no page size when the route has none either, instead of answering every row', async () => {
    const unsized = new CursorPagination({ secret: TEST_SECRET, ordering: 'created' })
    const logged: unknown[] = []
    const view = (pageSize?: number) =>
      createApi({ logError: (error: unknown) => void logged.push(error) }).view({
        ...(pageSize === undefined ? {} : { pageSize }),
        handlers: { GET: (ctx) => paginatedList(ctx, unsized, new ArrayPageSource(rows), (r) => r.id) },
      })
    const refused = await view().handle(get('http://x/items/?cursor=garbage'))
    expect(refused.status).toBe(500)
    expect(JSON.stringify(refused.body)).not.toContain('"results"')
    expect(String(logged[0])).toMatch(/paginatedList: CursorPagination has no page size/)
    const sized = await view(5).handle(get('http://x/items/'))
    expect((sized.body as { results: unknown[] }).results).toEqual([1, 2, 3, 4, 5])
  })
})
