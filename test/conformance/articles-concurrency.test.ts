/**
 * Cursor pagination's guarantee under concurrent writes: a client walking forward
 * never sees an article twice and never skips one that existed when it started,
 * while others insert (real HTTP POSTs as bob, plus direct inserts that land in
 * the middle of the ordering, on tied values); walking back with previous links
 * returns the same pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedArticle } from '../../examples/reference-api/seed.js'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { fetchPage, walkBackward, walkForward, type FetchedPage } from './articles-walk.js'

const BOB = { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Content-Type': 'application/json' }

function duplicates(ids: readonly number[]): number[] {
  const seen = new Set<number>()
  return ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)))
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cursor walks under concurrent inserts on ${backend.name}`, () => {
    let server: RunningReference
    let inserted = 0

    beforeAll(async () => {
      server = await startReference(await backend.create())
    })
    afterAll(async () => {
      await server?.close()
    })

    async function post(score: number): Promise<void> {
      const res = await fetch(`${server.baseUrl}/api/articles/`, {
        method: 'POST',
        headers: BOB,
        body: JSON.stringify({ title: `Concurrent ${inserted}`, score }),
      })
      expect(res.status).toBe(201)
      await res.json()
      inserted++
    }

    /** An article placed in the middle of the walk: same `created` as seed article `i` (a tie). */
    async function insertTie(i: number, score: number): Promise<void> {
      const created = seedArticle(i).created
      await server.ref.db
        .insertInto('articles')
        .values({ title: `Tie ${i}`, author_id: 1, score, created: server.ref.database.dialect === 'postgres' ? new Date(created) : created })
        .execute()
      inserted++
    }

    async function existingIds(): Promise<Set<number>> {
      const all = await fetchPage(`${server.baseUrl}/api/articles/all/`)
      return new Set((all.body as { id: number }[]).map((a) => a.id))
    }

    /** Walks forward while a background writer and a per-page writer insert articles. */
    async function walkWhileInserting(url: string): Promise<{ before: Set<number>; pages: FetchedPage[] }> {
      const before = await existingIds()
      let running = true
      const background = (async () => {
        for (let n = 0; running && n < 10; n++) await post(n % 10)
      })()
      const pages: FetchedPage[] = []
      let next: string | null = url
      let step = 0
      while (next !== null) {
        const page = await fetchPage(next)
        expect(page.status).toBe(200)
        pages.push(page)
        next = page.next
        // Land new rows behind, inside and ahead of the walker, on tied timestamps and scores.
        step++
        await insertTie(1 + ((step * 37) % 137), step % 10)
        await post((step * 3) % 10)
      }
      running = false
      await background
      return { before, pages }
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
        expect(inserted).toBeGreaterThan(pages.length)

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
