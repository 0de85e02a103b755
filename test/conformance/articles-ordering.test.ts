/**
 * The ordering filter over real HTTP on SQLite and PostgreSQL: a cursor walk under each
 * allowed ordering of `/api/articles/cursor-ordered/` sees every article exactly once,
 * also while others insert (HTTP POSTs, and direct inserts on tied scores and timestamps
 * in the middle of the ordering); the page-number route's pages follow the chosen ordering
 * with id as the tiebreaker; odd `?ordering=` values are always a 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { articleWriters, duplicates } from './article-writers.js'
import { fetchPage, walkBackward, walkForward } from './articles-walk.js'
import { backendUnavailable } from '../helpers/requirements.js'

/** Every ordering the cursor route allows, one and two fields, both directions. */
const CURSOR_ORDERINGS = ['created', '-created', 'score', '-score', 'id', '-id', '-score,created', 'score,-created', '-created,score', 'score,-id']

interface Article {
  readonly id: number
  readonly title: string
  readonly score: number
  readonly created: string
}

/** Sorts like `?ordering=` then id: what the filter promises. */
function sortedBy(articles: readonly Article[], ordering: string): number[] {
  const terms = ordering.split(',').map((t) => (t.startsWith('-') ? { field: t.slice(1), sign: -1 } : { field: t, sign: 1 }))
  if (!terms.some((t) => t.field === 'id')) terms.push({ field: 'id', sign: 1 })
  const value = (a: Article, field: string): string | number => (field === 'created' ? Date.parse(a.created) : (a[field as keyof Article] as string | number))
  return [...articles]
    .sort((a, b) => {
      for (const t of terms) {
        const x = value(a, t.field)
        const y = value(b, t.field)
        if (x !== y) return x < y ? -t.sign : t.sign
      }
      return 0
    })
    .map((a) => a.id)
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`ordering filter over HTTP on ${backend.name}`, () => {
    let server: RunningReference
    const writers = articleWriters(() => server)

    beforeAll(async () => {
      server = await startReference(await backend.create())
    })
    afterAll(async () => {
      await server?.close()
    })

    async function allArticles(): Promise<Article[]> {
      return (await fetchPage(`${server.baseUrl}/api/articles/all/`)).body as Article[]
    }

    for (const ordering of CURSOR_ORDERINGS) {
      it(`cursor walk under ?ordering=${ordering}: every article exactly once, also with inserts during the walk`, async () => {
        const route = `${server.baseUrl}/api/articles/cursor-ordered/?ordering=${encodeURIComponent(ordering)}&page_size=9`
        // Quiet: the walk is the filter's order, and previous links return the same pages.
        const quiet = await walkForward(route)
        const before = await allArticles()
        expect(quiet.flatMap((p) => p.ids)).toEqual(sortedBy(before, ordering))
        for (const page of quiet) if (page.next !== null) expect(new URL(page.next).searchParams.get('ordering')).toBe(ordering)
        const last = quiet[quiet.length - 1]
        if (last === undefined) throw new Error('no pages')
        expect((await walkBackward(last.url)).map((p) => p.ids)).toEqual(quiet.map((p) => p.ids).reverse())

        // Busy: rows land behind, inside and ahead of the walker on every page.
        const existing = new Set((await allArticles()).map((a) => a.id))
        const pages = await writers.walkWhileInserting(route)
        const ids = pages.flatMap((p) => p.ids)
        expect(duplicates(ids)).toEqual([])
        expect([...existing].filter((id) => !ids.includes(id))).toEqual([])
        expect(writers.inserted).toBeGreaterThan(0)
      })
    }

    it('page-number pages follow ?ordering= with id as the tiebreaker, on both databases alike', async () => {
      const articles = await allArticles()
      for (const ordering of ['title', '-title', 'score', '-score', 'created', '-created', '-score,-created', 'score,-id']) {
        const pages = await walkForward(`${server.baseUrl}/api/articles/ordered/?ordering=${encodeURIComponent(ordering)}&page_size=25`)
        expect([ordering, pages.flatMap((p) => p.ids)]).toEqual([ordering, sortedBy(articles, ordering)])
      }
    })

    it('answers 200 for any ?ordering= value, and 404 Invalid cursor for a cursor of another ordering', async () => {
      const odd = ['', ',', '-', '--', 'id,,', '\u0000', '%', '-score'.repeat(500), 'x'.repeat(5000), 'ordering', 'SCORE', 'score__lt', '-created,-created,-created', '\u00a0score\u2003']
      for (const value of odd) {
        for (const route of ['/api/articles/ordered/', '/api/articles/cursor-ordered/']) {
          const res = await fetch(`${server.baseUrl}${route}?ordering=${encodeURIComponent(value)}`)
          expect([route, value.slice(0, 20), res.status]).toEqual([route, value.slice(0, 20), 200])
          await res.arrayBuffer()
        }
      }
      const byScore = await fetchPage(`${server.baseUrl}/api/articles/cursor-ordered/?ordering=score`)
      const cursor = new URL(byScore.next ?? '').searchParams.get('cursor') ?? ''
      for (const other of ['-score', 'created', 'id', 'score,-created']) {
        const res = await fetchPage(`${server.baseUrl}/api/articles/cursor-ordered/?ordering=${other}&cursor=${encodeURIComponent(cursor)}`)
        expect([other, res.status, res.body]).toEqual([other, 404, { detail: 'Invalid cursor' }])
      }
    })
  })
}
