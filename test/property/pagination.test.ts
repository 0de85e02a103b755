/**
 * Arbitrary paging parameters never crash the article routes: every answer is a
 * 200 or DRF's 404 (`Invalid page.` / `Invalid cursor`), never a 500, on SQLite
 * and PostgreSQL (where a wrongly typed position would be a database error).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const RUNS = 60

const numberish = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', 'last', 'end', 'LAST', '1_0', '٣', ' 2 ', '+2', '2.0', '1e3', '%', '\u0000', '9'.repeat(5000), '-0', '0x1'),
)

/** Encoded as a client would, or raw (broken percent escapes and all) as an attacker would. */
const queryValue = (arb: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    arb.map((v) => encodeURIComponent(v)),
    arb.map((v) => v.replace(/[#&\s]/g, '')),
  )

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url)
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // keep text
  }
  return { status: res.status, body }
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`paging parameters never 500 on ${backend.name}`, () => {
    let server: RunningReference
    let cursors: string[] = []

    beforeAll(async () => {
      server = await startReference(await backend.create())
      for (const route of ['/api/articles/cursor/', '/api/articles/cursor-score/', '/api/articles/cursor-ordered/?ordering=-score', '/api/articles/cursor-ordered/?ordering=id,created']) {
        const first = (await get(server.baseUrl + route)).body as { next: string }
        const second = (await get(first.next)).body as { previous: string; next: string }
        for (const link of [first.next, second.previous, second.next]) cursors.push(new URL(link).searchParams.get('cursor') ?? '')
      }
      cursors = cursors.filter((c) => c !== '')
    })
    afterAll(async () => {
      await server?.close()
    })

    it('page and page_size: 200 or 404 "Invalid page."', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/api/articles/', '/api/articles/pages/', '/api/articles/link-header/', '/api/articles/nested/', '/api/articles/manual/'),
          queryValue(numberish),
          queryValue(numberish),
          async (route, page, size) => {
            const { status, body } = await get(`${server.baseUrl}${route}?page=${page}&page_size=${size}`)
            if (status === 404) expect(body).toEqual({ detail: 'Invalid page.' })
            else expect(status).toBe(200)
          },
        ),
        { numRuns: RUNS },
      )
    })

    it('limit and offset: always 200 (bad values fall back)', async () => {
      await fc.assert(
        fc.asyncProperty(queryValue(numberish), queryValue(numberish), async (limit, offset) => {
          const { status } = await get(`${server.baseUrl}/api/articles/offset/?limit=${limit}&offset=${offset}`)
          expect(status).toBe(200)
        }),
        { numRuns: RUNS },
      )
    })

    it('cursor strings, random or mutated real ones: 200 or 404 "Invalid cursor"', async () => {
      const mutated = fc
        .tuple(fc.constantFrom(...cursors), fc.nat(), fc.string({ minLength: 1, maxLength: 3 }))
        .map(([c, at, s]) => c.slice(0, at % (c.length + 1)) + s + c.slice((at % (c.length + 1)) + 1))
      const cursorArb = fc.oneof(fc.string(), fc.base64String(), mutated, fc.constantFrom(...cursors), numberish)
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/api/articles/cursor/', '/api/articles/cursor-score/'),
          queryValue(cursorArb),
          queryValue(numberish),
          async (route, cursor, size) => {
            const { status, body } = await get(`${server.baseUrl}${route}?cursor=${cursor}&page_size=${size}`)
            if (status === 404) expect(body).toEqual({ detail: 'Invalid cursor' })
            else expect(status).toBe(200)
          },
        ),
        { numRuns: RUNS * 2 },
      )
    })

    it('ordering: any value, with any cursor (of this ordering, another or none): 200 or 404 "Invalid cursor"', async () => {
      const term = fc.oneof(
        fc.constantFrom('id', '-id', 'title', '-title', 'score', '-score', 'created', '-created', '--id', '-', '', ' score ', 'author', 'created__lt'),
        fc.string(),
        fc.string({ unit: 'binary' }),
      )
      const ordering = fc.oneof(fc.array(term, { maxLength: 6 }).map((terms) => terms.join(',')), numberish)
      await fc.assert(
        fc.asyncProperty(
          queryValue(ordering),
          fc.option(queryValue(fc.oneof(fc.constantFrom(...cursors), fc.string())), { nil: undefined }),
          queryValue(numberish),
          async (order, cursor, page) => {
            const ordered = await get(`${server.baseUrl}/api/articles/ordered/?ordering=${order}&page=${page}`)
            if (ordered.status === 404) expect(ordered.body).toEqual({ detail: 'Invalid page.' })
            else expect(ordered.status).toBe(200)
            const query = cursor === undefined ? '' : `&cursor=${cursor}`
            const { status, body } = await get(`${server.baseUrl}/api/articles/cursor-ordered/?ordering=${order}${query}`)
            if (status === 404) expect(body).toEqual({ detail: 'Invalid cursor' })
            else expect(status).toBe(200)
          },
        ),
        { numRuns: RUNS * 2 },
      )
    })

    it('author filter: any value is 200', async () => {
      await fc.assert(
        fc.asyncProperty(queryValue(fc.oneof(fc.string(), fc.string({ unit: 'binary' }))), async (author) => {
          const { status } = await get(`${server.baseUrl}/api/articles/cursor/?author=${author}`)
          expect(status).toBe(200)
        }),
        { numRuns: RUNS },
      )
    })
  })
}
