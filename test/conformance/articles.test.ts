/**
 * The Articles routes of reference-api.md over real HTTP, on SQLite and (when
 * DATABASE_URL points at one) PostgreSQL: every style walked to the end and back,
 * with and without `?author=`, at and above the maximum page sizes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedArticle, SEED_ARTICLE_COUNT } from '../../examples/reference-api/seed.js'
import { encodeCursor } from '../../src/pagination/cursor-codec.js'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { fetchPage, walkBackward, walkForward, type FetchedPage } from './articles-walk.js'
import { backendUnavailable } from '../helpers/requirements.js'

const SEED = Array.from({ length: SEED_ARTICLE_COUNT }, (_, k) => seedArticle(k + 1))
const authorOf = (id: number): string => (id % 2 === 1 ? 'alice' : 'bob')
const byId = (author: string | null): number[] => SEED.filter((a) => author === null || authorOf(a.id) === author).map((a) => a.id)
/** `-created` with the unique tiebreaker `id` ascending (newest first, ties oldest id first). */
const byCreated = (author: string | null): number[] =>
  SEED.filter((a) => author === null || authorOf(a.id) === author)
    .sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : a.id - b.id))
    .map((a) => a.id)
const byScore = (author: string | null): number[] =>
  SEED.filter((a) => author === null || authorOf(a.id) === author)
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .map((a) => a.id)

const chunks = (ids: readonly number[], size: number): number[][] => {
  const out: number[][] = []
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size))
  return out.length === 0 ? [[]] : out
}

/** Forward pages, then the previous links from the last page back to the first. */
async function walkBothWays(url: string): Promise<{ forward: FetchedPage[]; backward: FetchedPage[] }> {
  const forward = await walkForward(url)
  const last = forward[forward.length - 1]
  if (last === undefined) throw new Error('no pages')
  return { forward, backward: await walkBackward(last.url) }
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`articles on ${backend.name}`, () => {
    let server: RunningReference
    let base = ''

    beforeAll(async () => {
      server = await startReference(await backend.create())
      base = server.baseUrl
    })
    afterAll(async () => {
      await server?.close()
    })

    const numbered: [string, string, number, number][] = [
      // route, query, expected page size, pages for all 137
      ['/api/articles/', '', 10, 14],
      ['/api/articles/', '?page_size=50', 10, 14],
      ['/api/articles/pages/', '', 10, 14],
      ['/api/articles/pages/', '?page_size=25', 25, 6],
      ['/api/articles/pages/', '?page_size=1000', 25, 6],
      ['/api/articles/offset/', '', 10, 14],
      ['/api/articles/offset/', '?limit=25', 25, 6],
      ['/api/articles/offset/', '?limit=100', 25, 6],
      ['/api/articles/nested/', '', 10, 14],
      ['/api/articles/link-header/', '', 10, 14],
      ['/api/articles/manual/', '', 5, 28],
    ]
    for (const [route, query, size, pages] of numbered) {
      for (const author of [null, 'bob', 'alice']) {
        const q = author === null ? query : `${query}${query === '' ? '?' : '&'}author=${author}`
        it(`${route}${q}: walks every article once, forward and back`, async () => {
          const expected = chunks(byId(author), size)
          const { forward, backward } = await walkBothWays(base + route + q)
          expect(forward.map((p) => p.ids)).toEqual(expected)
          if (author === null) expect(forward).toHaveLength(pages)
          expect(backward.map((p) => p.ids)).toEqual([...expected].reverse())
          const count = byId(author).length
          for (const page of forward) {
            if (route.endsWith('/link-header/')) {
              expect(Array.isArray(page.body)).toBe(true)
              expect(page.headers.get('x-total-count')).toBe(String(count))
            } else if (route.endsWith('/nested/')) {
              expect(Object.keys(page.body as object)).toEqual(['links', 'count', 'results'])
              expect(Object.keys((page.body as { links: object }).links)).toEqual(['next', 'previous'])
              expect((page.body as { count: number }).count).toBe(count)
            } else {
              expect(Object.keys(page.body as object)).toEqual(['count', 'next', 'previous', 'results'])
              expect((page.body as { count: number }).count).toBe(count)
            }
          }
          // Links keep the other parameters (keys sorted) and are absolute.
          for (const page of forward) {
            for (const link of [page.next, page.previous]) {
              if (link === null) continue
              expect(link.startsWith(`${base}${route}`)).toBe(true)
              if (author !== null) expect(link).toContain(`author=${author}`)
              // Limit/offset always writes the effective (clamped) limit; other styles echo the raw value.
              if (query.startsWith('?limit=')) expect(link).toContain(`limit=${size}`)
              else if (query !== '') expect(link).toContain(query.slice(1))
            }
          }
        })
      }
    }

    it('page-number links: page 1 drops the page parameter, last page has no next', async () => {
      const second = await fetchPage(`${base}/api/articles/?page=2`)
      expect(second.previous).toBe(`${base}/api/articles/`)
      expect(second.next).toBe(`${base}/api/articles/?page=3`)
      const last = await fetchPage(`${base}/api/articles/pages/?page=end&page_size=1000`)
      expect(last.ids).toEqual(byId(null).slice(125))
      expect(last.next).toBeNull()
      expect(last.previous).toBe(`${base}/api/articles/pages/?page=5&page_size=1000`)
      const sorted = await fetchPage(`${base}/api/articles/?page=2&b=2&a=1&a=0`)
      expect(sorted.next).toBe(`${base}/api/articles/?a=1&a=0&b=2&page=3`)
      expect(sorted.previous).toBe(`${base}/api/articles/?a=1&a=0&b=2`)
    })

    it('page-number errors are DRF 3.14 404s', async () => {
      for (const page of ['', '0', '-1', 'abc', '2.0', '15', 'LAST', '2;x=1']) {
        const res = await fetchPage(`${base}/api/articles/?page=${page}`)
        expect([page, res.status, res.body]).toEqual([page, 404, { detail: 'Invalid page.' }])
      }
      const empty = await fetchPage(`${base}/api/articles/?author=nobody`)
      expect(empty.body).toEqual({ count: 0, next: null, previous: null, results: [] })
      expect((await fetchPage(`${base}/api/articles/?author=nobody&page=last`)).status).toBe(200)
      expect((await fetchPage(`${base}/api/articles/?author=nobody&page=2`)).status).toBe(404)
    })

    it('limit/offset links follow DRF §13.4, including offsets past the end', async () => {
      const a = await fetchPage(`${base}/api/articles/offset/`)
      expect(a.next).toBe(`${base}/api/articles/offset/?limit=10&offset=10`)
      const b = await fetchPage(`${base}/api/articles/offset/?limit=5&offset=3`)
      expect(b.ids).toEqual([4, 5, 6, 7, 8])
      expect(b.previous).toBe(`${base}/api/articles/offset/?limit=5`)
      const c = await fetchPage(`${base}/api/articles/offset/?limit=5&offset=1000`)
      expect(c.body).toEqual({ count: 137, next: null, previous: `${base}/api/articles/offset/?limit=5&offset=995`, results: [] })
      const d = await fetchPage(`${base}/api/articles/offset/?limit=abc&offset=-5`)
      expect(d.ids).toEqual(byId(null).slice(0, 10))
      expect(d.next).toBe(`${base}/api/articles/offset/?limit=10&offset=10`)
      const huge = await fetchPage(`${base}/api/articles/offset/?offset=100000000000000000000000000000`)
      expect(huge.status).toBe(200)
      expect(huge.previous).toBe(`${base}/api/articles/offset/?limit=10&offset=99999999999999999999999999990`)
    })

    const cursorCases: [string, string, (author: string | null) => number[], number][] = [
      ['/api/articles/cursor/', '', byCreated, 10],
      ['/api/articles/cursor/', '?page_size=25', byCreated, 25],
      ['/api/articles/cursor/', '?page_size=1000', byCreated, 25],
      ['/api/articles/cursor/', '?page_size=0', byCreated, 10],
      ['/api/articles/cursor-score/', '', byScore, 7],
      ['/api/articles/cursor-score/', '?page_size=3', byScore, 7],
    ]
    for (const [route, query, order, size] of cursorCases) {
      for (const author of [null, 'bob']) {
        const q = author === null ? query : `${query}${query === '' ? '?' : '&'}author=${author}`
        it(`${route}${q}: every article once, in order, and back through the same pages`, async () => {
          const { forward, backward } = await walkBothWays(base + route + q)
          expect(forward.map((p) => p.ids)).toEqual(chunks(order(author), size))
          expect(backward.map((p) => p.ids)).toEqual(chunks(order(author), size).reverse())
          for (const page of [...forward, ...backward]) expect(Object.keys(page.body as object)).toEqual(['next', 'previous', 'results'])
          expect(forward[0]?.previous).toBeNull()
          expect(backward[backward.length - 1]?.previous).toBeNull()
          expect(forward[forward.length - 1]?.next).toBeNull()
          for (const page of forward.slice(1)) {
            if (author !== null) expect(page.url).toContain(`author=${author}`)
            if (query !== '') expect(page.url).toContain(query.slice(1))
          }
        })
      }
    }

    it('cursor: -created walks newest first with ties by id', async () => {
      const first = await fetchPage(`${base}/api/articles/cursor/?page_size=4`)
      expect(first.ids).toEqual([137, 136, 134, 135])
    })

    it('cursor: invalid, tampered, foreign and wrong-type cursors are 404 "Invalid cursor"', async () => {
      const second = (await fetchPage(`${base}/api/articles/cursor/`)).next ?? ''
      const cursor = new URL(second).searchParams.get('cursor') ?? ''
      const [payload = '', mac = ''] = cursor.split('.')
      const flipped = payload.slice(0, 5) + (payload[5] === 'A' ? 'B' : 'A') + payload.slice(6)
      const scoreCursor = new URL((await fetchPage(`${base}/api/articles/cursor-score/`)).next ?? '').searchParams.get('cursor') ?? ''
      const wrongType = encodeCursor({ reverse: false, key: ['abc', 'x'] }, '-created,id', server.ref.secrets[0] ?? '')
      const wrongLength = encodeCursor({ reverse: false, key: [5] }, '-created,id', server.ref.secrets[0] ?? '')
      for (const bad of ['garbage', '123', `${flipped}.${mac}`, `${payload}.${mac}x`, scoreCursor, wrongType, wrongLength, '%E2%82%AC', 'bz0', 'bz01€']) {
        const res = await fetchPage(`${base}/api/articles/cursor/?cursor=${bad}`)
        expect([bad, res.status, res.body]).toEqual([bad, 404, { detail: 'Invalid cursor' }])
      }
      // DRF: an empty cursor is the first page.
      expect((await fetchPage(`${base}/api/articles/cursor/?cursor=`)).ids).toEqual(byCreated(null).slice(0, 10))
      // `bz01` is a DRF cursor (`o=5`): honoured, DRF's rows (drfCursors is on by default).
      expect((await fetchPage(`${base}/api/articles/cursor/?cursor=bz01`)).ids).toEqual(byCreated(null).slice(5, 15))
    })

    it('unknown author: empty pages in every style', async () => {
      expect((await fetchPage(`${base}/api/articles/cursor/?author=nobody`)).body).toEqual({ next: null, previous: null, results: [] })
      expect((await fetchPage(`${base}/api/articles/offset/?author=nobody`)).body).toEqual({ count: 0, next: null, previous: null, results: [] })
      expect((await fetchPage(`${base}/api/articles/all/?author=nobody`)).body).toEqual([])
      expect((await fetchPage(`${base}/api/articles/all/?author=nob%00dy`)).body).toEqual([])
      const link = await fetchPage(`${base}/api/articles/link-header/?author=nobody`)
      expect([link.headers.get('link'), link.headers.get('x-total-count'), link.body]).toEqual([null, '0', []])
    })

    it('link-header: next before prev, joined by ", "', async () => {
      const page = await fetchPage(`${base}/api/articles/link-header/?page=3`)
      expect(page.headers.get('link')).toBe(
        `<${base}/api/articles/link-header/?page=4>; rel="next", <${base}/api/articles/link-header/?page=2>; rel="prev"`,
      )
      expect((await fetchPage(`${base}/api/articles/link-header/?page=14`)).headers.get('link')).toBe(
        `<${base}/api/articles/link-header/?page=13>; rel="prev"`,
      )
    })

    it('pagination off: /all/ is a plain array of every article', async () => {
      const all = await fetchPage(`${base}/api/articles/all/`)
      expect(all.body).toHaveLength(137)
      expect((all.body as { id: number }[]).map((a) => a.id)).toEqual(byId(null))
      expect((all.body as unknown[])[6]).toEqual({ id: 7, title: 'Article 007', author: 'alice', score: 9, created: '2024-01-01T00:07:00Z' })
    })

    it('HTML: numbers controls for numbered styles, previous/next for cursors, none for manual and all', async () => {
      const html = async (path: string): Promise<string> => {
        const res = await fetch(base + path, { headers: { Accept: 'text/html' } })
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
        return res.text()
      }
      const pages = await html('/api/articles/pages/?page=3')
      expect(pages).toContain('<ul class="pagination">')
      expect(pages).toContain(`<li class="active"><a href="${base}/api/articles/pages/?page=3">3</a></li>`)
      expect(pages).toContain('Article 021')
      expect(await html('/api/articles/offset/')).toContain('<ul class="pagination">')
      expect(await html('/api/articles/')).toContain('<ul class="pagination">')
      const cursor = await html('/api/articles/cursor/')
      expect(cursor).toContain('<ul class="pager">')
      expect(cursor).toContain('<li class="previous disabled">')
      expect(await html('/api/articles/manual/')).not.toContain('<ul class="pagination">')
      expect(await html('/api/articles/all/')).not.toContain('<ul class="')
      expect(await html('/api/articles/pages/?author=nobody')).not.toContain('<ul class="pagination">')
    })

    it('POST creates an article for the requester; anonymous POST is refused', async () => {
      const res = await fetch(`${base}/api/articles/`, {
        method: 'POST',
        headers: { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Fresh', score: 3 }),
      })
      expect(res.status).toBe(201)
      const article = (await res.json()) as Record<string, unknown>
      expect(Object.keys(article)).toEqual(['id', 'title', 'author', 'score', 'created'])
      expect(article).toMatchObject({ title: 'Fresh', author: 'bob', score: 3 })
      expect(article['id']).toBeGreaterThan(137)
      expect(String(article['created'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}000)?Z$/)
      // The new article is the newest: first on the -created cursor walk.
      expect((await fetchPage(`${base}/api/articles/cursor/`)).ids[0]).toBe(article['id'])
      const anon = await fetch(`${base}/api/articles/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
      expect(anon.status).toBe(401)
      const missing = await fetch(`${base}/api/articles/`, {
        method: 'POST',
        headers: { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Content-Type': 'application/json' },
        body: JSON.stringify({ score: 99999999999 }),
      })
      expect([missing.status, await missing.json()]).toEqual([
        400,
        { title: ['This field is required.'], score: ['Ensure this value is less than or equal to 2147483647.'] },
      ])
    })

    it('POST: a NUL or a lone surrogate in a title is DRF\'s 400 (PostgreSQL\'s text refuses NUL: never a 500)', async () => {
      const post = async (title: string): Promise<[number, unknown]> => {
        const res = await fetch(`${base}/api/articles/`, {
          method: 'POST',
          headers: { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Content-Type': 'application/json' },
          body: JSON.stringify({ title, score: 1 }),
        })
        return [res.status, await res.json()]
      }
      expect(await post('a\u0000b')).toEqual([400, { title: ['Null characters are not allowed.'] }])
      expect(await post('a\ud800b')).toEqual([400, { title: ['Surrogate characters are not allowed: U+D800.'] }])
      expect(await post(`\u0000${'x'.repeat(200)}\udc00`)).toEqual([
        400,
        {
          title: [
            'Ensure this field has no more than 200 characters.',
            'Null characters are not allowed.',
            'Surrogate characters are not allowed: U+DC00.',
          ],
        },
      ])
    })
  })
}
