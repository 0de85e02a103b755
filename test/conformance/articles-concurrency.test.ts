/**
 * Cursor pagination's guarantee under concurrent writes: a client walking forward
 * never sees an article twice and never skips one that existed when it started,
 * while others insert (real HTTP POSTs as bob, plus direct inserts that land in
 * the middle of the ordering, on tied values); walking back with previous links
 * returns the same pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { articleWriters, duplicates } from './article-writers.js'
import { fetchPage, walkBackward, walkForward, type FetchedPage } from './articles-walk.js'
import { backendUnavailable } from '../helpers/requirements.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`cursor walks under concurrent inserts on ${backend.name}`, () => {
    let server: RunningReference
    const writers = articleWriters(() => server)
    const { post } = writers

    beforeAll(async () => {
      server = await startReference(await backend.create())
    })
    afterAll(async () => {
      await server?.close()
    })

    async function existingIds(): Promise<Set<number>> {
      const all = await fetchPage(`${server.baseUrl}/api/articles/all/`)
      return new Set((all.body as { id: number }[]).map((a) => a.id))
    }

    /** Walks forward while writers insert articles (see ArticleWriters.walkWhileInserting). */
    async function walkWhileInserting(url: string): Promise<{ before: Set<number>; pages: FetchedPage[] }> {
      const before = await existingIds()
      return { before, pages: await writers.walkWhileInserting(url) }
    }

    for (const [route, label] of [
      ['/api/articles/cursor/', '-created'],
      ['/api/articles/cursor-score/', '-score, id (many ties)'],
    ] as const) {
      it(`${label}: no repeats, no gaps, and previous links walk back without repeats`, async () => {
        const { before, pages } = await walkWhileInserting(server.baseUrl + route)
        const ids = pages.flatMap((p) => p.ids)
        expect(duplicates(ids)).toEqual([])
        expect([...before].filter((id) => !ids.includes(id))).toEqual([])
        expect(writers.inserted).toBeGreaterThan(pages.length)

        // Back from the last page while writers keep inserting: still no repeats, no gaps.
        const beforeBack = await existingIds()
        const last = pages[pages.length - 1]
        if (last === undefined) throw new Error('no pages')
        const backPages: FetchedPage[] = []
        let previous: string | null = last.url
        while (previous !== null) {
          const page = await fetchPage(previous)
          backPages.push(page)
          previous = page.previous
          await post(backPages.length % 10)
        }
        const backIds = backPages.flatMap((p) => p.ids)
        expect(duplicates(backIds)).toEqual([])
        expect([...beforeBack].filter((id) => !backIds.includes(id))).toEqual([])
      })

      it(`${label}: once writes stop, previous links return exactly the forward pages`, async () => {
        const forward = await walkForward(server.baseUrl + route)
        const last = forward[forward.length - 1]
        if (last === undefined) throw new Error('no pages')
        const backward = await walkBackward(last.url)
        expect(backward.map((p) => p.ids)).toEqual(forward.map((p) => p.ids).reverse())
        expect(forward.flatMap((p) => p.ids).sort((a, b) => a - b)).toEqual([...(await existingIds())].sort((a, b) => a - b))
      })
    }
  })
}
