/**
 * A `$` (regex) search on PostgreSQL over real HTTP: a term the database cannot compile as a
 * regular expression (SQLSTATE 2201B, which DRF answers with a 500) is a 400 naming the search
 * parameter, on page-number and cursor pages; a custom filter's regex gets a bare 400; the
 * connection serves the next request. Past `maxTerms` search terms: a 400 too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { route } from 'drf-gatehouse'
import { CursorPagination, FilterSet, listHandler, PageNumberPagination, SearchFilter } from 'drf-gatehouse'
import { ARTICLE_COLUMNS, articleSources, serializeArticle } from '../../examples/reference-api/routes/articles.js'
import { freshPostgres, postgresAvailable } from '../helpers/databases.js'
import { startReference, testFramework, type RunningReference } from '../helpers/reference-server.js'
import { unavailable } from '../helpers/requirements.js'
import { startRoutes, type RunningRoutes } from '../helpers/routes-server.js'

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()))(`regex search on PostgreSQL over HTTP (${testFramework()})`, () => {
  let server: RunningReference
  let own: RunningRoutes

  beforeAll(async () => {
    server = await startReference(await freshPostgres())
    const { api } = server.ref
    const source = articleSources(server.ref)
    const handler = listHandler({
      source,
      serialize: serializeArticle,
      fields: Object.keys(ARTICLE_COLUMNS),
      search: new SearchFilter({ fields: ['title', '$title'], maxTerms: 5 }),
      filters: new FilterSet({ title_regex: { type: 'text', condition: (value) => ({ kind: 'regex', field: 'title', value }) } }),
    })
    own = await startRoutes(testFramework(), [
      route('/regex/', api.view({ name: 'Regex', pagination: new PageNumberPagination({ pageSize: 10 }), handlers: { GET: handler } })),
      route('/regex-cursor/', api.view({ name: 'Regex Cursor', pagination: new CursorPagination({ ordering: '-created', pageSize: 10, secret: 'x'.repeat(32) }), handlers: { GET: handler } })),
    ])
  }, 60_000)
  afterAll(async () => {
    await own?.close()
    await server?.close()
  })

  const get = async (path: string): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(own.baseUrl + path, { headers: { accept: 'application/json' } })
    return { status: response.status, body: await response.json() }
  }
  const invalid = { search: ['Enter a valid regular expression.'] }

  it('an invalid regular expression is a 400 naming the search parameter, on both pagination styles', async () => {
    for (const path of ['/regex/', '/regex-cursor/']) {
      for (const term of ['(', '[a-', 'a{2,1}', '*', '\\']) {
        expect(await get(`${path}?search=${encodeURIComponent(term)}`), `${path} ${term}`).toEqual({ status: 400, body: invalid })
      }
      // With a valid term beside it: still the invalid one's 400.
      expect(await get(`${path}?search=${encodeURIComponent('Article (')}`)).toEqual({ status: 400, body: invalid })
    }
  })

  it('a valid regular expression searches, and the connection serves requests after a refused one', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await get('/regex/?search=(')).status).toBe(400)
      const { status, body } = await get(`/regex/?search=${encodeURIComponent('^article.00[12]$')}`)
      expect(status).toBe(200)
      // `~*`: case-insensitive, as Django's iregex.
      expect((body as { count: number; results: { id: number }[] }).results.map((r) => r.id)).toEqual([1, 2])
      expect((body as { count: number }).count).toBe(2)
    }
  })

  it("a custom filter's invalid regular expression is a bare 400", async () => {
    expect(await get('/regex/?title_regex=(')).toEqual({ status: 400, body: ['Enter a valid regular expression.'] })
    expect((await get(`/regex/?title_regex=${encodeURIComponent('01$')}`)).body).toMatchObject({ count: 2 })
  })

  it('more search terms than maxTerms: a 400 saying how many', async () => {
    expect(await get('/regex/?search=a,b,c,d,e,f')).toEqual({ status: 400, body: { search: ['Ensure this value has at most 5 terms (it has 6).'] } })
    expect((await get('/regex/?search=a,b,c,d,e')).status).toBe(200)
  })
})
