/**
 * Gatehouse's article routes against the DRF 3.14 oracle: the same requests to both,
 * comparing status codes, bodies (host/port and cursor strings masked) and, for
 * every route, the id sequence of a walk along the next links. Cursor routes are
 * compared going forward only: going back over ties DRF repeats or skips rows
 * (drf-behaviors.md §14.7), where gatehouse returns the forward pages exactly.
 */
import { describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { fetchPage, walkBackward, walkForward, type FetchedPage } from '../conformance/articles-walk.js'
import { oracleAvailable, useOracleAndReference } from './oracle-server.js'
import { PAGINATED_ARTICLE_ROUTES } from './requests.js'
import { unavailable } from '../helpers/requirements.js'

const drfInstalled = oracleAvailable()

/** Masks what legitimately differs: the origin, and cursor strings (opaque, different formats). */
function mask(value: unknown, origin: string): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .split(origin)
      .join('http://host')
      .replace(/cursor=[^&"]*/g, 'cursor=*'),
  ) as unknown
}

function masked(page: FetchedPage, origin: string): unknown {
  const link = page.headers.get('link')
  return {
    status: page.status,
    body: mask(page.body, origin),
    link: link === null ? null : mask(link, origin),
    total: page.headers.get('x-total-count'),
  }
}

const ROUTES = PAGINATED_ARTICLE_ROUTES
const CURSOR_ROUTES = new Set(['/api/articles/cursor/', '/api/articles/cursor-score/', '/api/articles/cursor-ordered/'])

const SINGLE_REQUESTS = [
  '/api/articles/all/',
  '/api/articles/all/?author=bob',
  '/api/articles/?page=2&b=2&a=1&a=0',
  '/api/articles/?page=last',
  '/api/articles/?page=LAST',
  '/api/articles/?page=',
  '/api/articles/?page=0',
  '/api/articles/?page=-1',
  '/api/articles/?page=abc',
  '/api/articles/?page=2.0',
  '/api/articles/?page=15',
  '/api/articles/?page=14',
  '/api/articles/?page=%202%20',
  '/api/articles/?page=%2B2',
  '/api/articles/?page=1_0',
  '/api/articles/?page=%D9%A3',
  '/api/articles/?page=%EF%BB%BF2',
  '/api/articles/?page=%C2%852',
  '/api/articles/?page=%1C2',
  '/api/articles/offset/?limit=%EF%BB%BF3',
  '/api/articles/pages/?author=%EF%BB%BFbob',
  '/api/articles/?page=2&page=3',
  '/api/articles/?page=2;x=1',
  '/api/articles/?page_size=50',
  '/api/articles/?z=%20x%2Fy&page=3',
  '/api/articles/?q=%zz&page=2',
  '/api/articles/?page=2&empty=',
  '/api/articles/pages/?page=end',
  '/api/articles/pages/?page_size=25&page=2',
  '/api/articles/pages/?page_size=1000&page=2',
  '/api/articles/pages/?page_size=0',
  '/api/articles/pages/?page_size=-3',
  '/api/articles/pages/?page_size=abc&page=3',
  '/api/articles/pages/?author=nobody',
  '/api/articles/pages/?author=nobody&page=2',
  '/api/articles/pages/?author=nobody&page=last',
  '/api/articles/pages/?author=',
  '/api/articles/offset/?limit=5&offset=1',
  '/api/articles/offset/?limit=5&offset=135',
  '/api/articles/offset/?limit=5&offset=137',
  '/api/articles/offset/?limit=5&offset=1000',
  '/api/articles/offset/?limit=0',
  '/api/articles/offset/?limit=-1',
  '/api/articles/offset/?limit=abc&offset=abc',
  '/api/articles/offset/?limit=100',
  '/api/articles/offset/?offset=-5',
  '/api/articles/offset/?limit=5&offset=7&x=1',
  '/api/articles/offset/?author=nobody',
  '/api/articles/offset/?author=nobody&offset=5',
  '/api/articles/cursor/?cursor=',
  '/api/articles/cursor/?cursor=123',
  '/api/articles/cursor/?cursor=%E2%82%AC',
  '/api/articles/cursor/?page_size=25',
  '/api/articles/cursor/?page_size=26',
  '/api/articles/cursor/?page_size=0',
  '/api/articles/cursor/?author=nobody',
  '/api/articles/cursor-score/?page_size=3',
  '/api/articles/link-header/?page=14',
  '/api/articles/link-header/?author=nobody',
  '/api/articles/link-header/?page=99',
  '/api/articles/nested/?page=14',
  '/api/articles/manual/?page=28',
  '/api/articles/manual/?page=29',
]

describe.skipIf(unavailable('the DRF oracle (python3 with Django and DRF)', drfInstalled))('articles: gatehouse against the DRF oracle', () => {
  const servers = useOracleAndReference(freshSqlite)

  it('answers single requests with the same status and masked body', async () => {
    const differences: string[] = []
    for (const path of SINGLE_REQUESTS) {
      const a = masked(await fetchPage(servers.ours.baseUrl + path), servers.ours.baseUrl)
      const b = masked(await fetchPage(servers.oracleBase + path), servers.oracleBase)
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${path}\n  ours   ${JSON.stringify(a).slice(0, 400)}\n  oracle ${JSON.stringify(b).slice(0, 400)}`)
    }
    expect(differences).toEqual([])
  })

  for (const route of ROUTES) {
    const sized = route.endsWith('/pages/') || route.endsWith('/cursor/')
    for (const query of sized ? ['', '?author=bob', '?author=alice&page_size=25'] : ['', '?author=bob']) {
      it(`walks ${route}${query} like DRF`, async () => {
        const a = await walkForward(servers.ours.baseUrl + route + query)
        const b = await walkForward(servers.oracleBase + route + query)
        expect(a.map((p) => p.ids)).toEqual(b.map((p) => p.ids))
        expect(a.map((p) => masked(p, servers.ours.baseUrl))).toEqual(b.map((p) => masked(p, servers.oracleBase)))
        const lastA = a[a.length - 1]
        const lastB = b[b.length - 1]
        if (lastA === undefined || lastB === undefined) throw new Error('empty walk')
        const backA = await walkBackward(lastA.url)
        if (CURSOR_ROUTES.has(route)) {
          // Our guarantee: previous links reproduce the forward pages exactly.
          expect(backA.map((p) => p.ids)).toEqual(a.map((p) => p.ids).reverse())
        } else {
          const backB = await walkBackward(lastB.url)
          expect(backA.map((p) => masked(p, servers.ours.baseUrl))).toEqual(backB.map((p) => masked(p, servers.oracleBase)))
        }
      })
    }
  }

  it('answers HTML for Accept: text/html on every list route, as DRF does', async () => {
    for (const route of [...ROUTES, '/api/articles/all/']) {
      const a = await fetch(servers.ours.baseUrl + route, { headers: { Accept: 'text/html' } })
      const b = await fetch(servers.oracleBase + route, { headers: { Accept: 'text/html' } })
      expect([route, a.status, a.headers.get('content-type')]).toEqual([route, b.status, b.headers.get('content-type')])
      await a.text()
      await b.text()
    }
  })

  it('answers OPTIONS (anonymous) and 405 like DRF', async () => {
    for (const route of [...ROUTES, '/api/articles/all/']) {
      for (const method of ['OPTIONS', 'DELETE', 'PUT']) {
        const a = await fetch(servers.ours.baseUrl + route, { method })
        const b = await fetch(servers.oracleBase + route, { method })
        expect([route, method, a.status, a.headers.get('allow'), await a.json()]).toEqual([route, method, b.status, b.headers.get('allow'), await b.json()])
      }
    }
  })

  it('validates POST /api/articles/ with the same field errors', async () => {
    const headers = { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Content-Type': 'application/json' }
    const bodies = ['{}', '{"title":"","score":"abc"}', '{"title":null,"score":true}', '[1]', '"x"', '5', 'null', '{"title":[],"score":{}}', '{"title":"   ","score":"7.000"}', `{"title":"${'a'.repeat(201)}","score":1.5}`]
    for (const body of bodies) {
      const a = await fetch(`${servers.ours.baseUrl}/api/articles/`, { method: 'POST', headers, body })
      const b = await fetch(`${servers.oracleBase}/api/articles/`, { method: 'POST', headers, body })
      expect([body, a.status, await a.json()]).toEqual([body, b.status, await b.json()])
    }
    const anonymous = await fetch(`${servers.ours.baseUrl}/api/articles/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    const anonymousOracle = await fetch(`${servers.oracleBase}/api/articles/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    expect([anonymous.status, await anonymous.json()]).toEqual([anonymousOracle.status, await anonymousOracle.json()])
    const created = await fetch(`${servers.ours.baseUrl}/api/articles/`, { method: 'POST', headers, body: '{"title":" New ","score":"4"}' })
    const createdOracle = await fetch(`${servers.oracleBase}/api/articles/`, { method: 'POST', headers, body: '{"title":" New ","score":"4"}' })
    const x = (await created.json()) as Record<string, unknown>
    const y = (await createdOracle.json()) as Record<string, unknown>
    expect(created.status).toBe(createdOracle.status)
    expect({ ...x, created: 'now' }).toEqual({ ...y, created: 'now' })
    expect(String(x['created'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/)
  })
})
