/** Writers that insert articles while a test walks the article lists (the concurrency and ordering suites). */
import { expect } from 'vitest'
import { seedArticle } from '../../examples/reference-api/seed.js'
import type { RunningReference } from '../helpers/reference-server.js'
import { fetchPage, type FetchedPage } from './articles-walk.js'

const BOB = { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Content-Type': 'application/json' }

/** Inserts articles into a running reference API, counting them. */
export interface ArticleWriters {
  /** POSTs an article as bob (created now: the newest). */
  post(score: number): Promise<void>
  /** Inserts an article tied with seed article `i` on `created`, with `score` (shared by many). */
  insertTie(i: number, score: number): Promise<void>
  /**
   * Follows next links from `url` while a background writer POSTs and, after each page,
   * rows land behind, inside and ahead of the walker (tied timestamps and scores).
   */
  walkWhileInserting(url: string): Promise<FetchedPage[]>
  /** How many articles were inserted so far. */
  readonly inserted: number
}

/** Writers for the server `server()` returns (read when called, so it may start later). */
export function articleWriters(server: () => RunningReference): ArticleWriters {
  let inserted = 0
  const writers: ArticleWriters = {
    async post(score: number): Promise<void> {
      const res = await fetch(`${server().baseUrl}/api/articles/`, { method: 'POST', headers: BOB, body: JSON.stringify({ title: `Concurrent ${inserted}`, score }) })
      expect(res.status).toBe(201)
      await res.json()
      inserted++
    },
    async insertTie(i: number, score: number): Promise<void> {
      const { ref } = server()
      const created = seedArticle(i).created
      await ref.db
        .insertInto('articles')
        .values({ title: `Tie ${i}`, author_id: 1, score, created: ref.database.dialect === 'postgres' ? new Date(created) : created })
        .execute()
      inserted++
    },
    async walkWhileInserting(url: string): Promise<FetchedPage[]> {
      let running = true
      const background = (async () => {
        for (let n = 0; running && n < 10; n++) await writers.post(n % 10)
      })()
      const pages: FetchedPage[] = []
      let next: string | null = url
      let step = 0
      while (next !== null) {
        const page = await fetchPage(next)
        expect(page.status).toBe(200)
        pages.push(page)
        next = page.next
        step++
        await writers.insertTie(1 + ((step * 37) % 137), step % 10)
        await writers.post((step * 3) % 10)
      }
      running = false
      await background
      return pages
    },
    get inserted(): number {
      return inserted
    },
  }
  return writers
}

/** The ids that occur more than once (after their first occurrence). */
export function duplicates(ids: readonly number[]): number[] {
  const seen = new Set<number>()
  return ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)))
}
