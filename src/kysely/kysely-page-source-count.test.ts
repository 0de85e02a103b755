/**
 * KyselyPageSource's counts on real SQLite and PostgreSQL: `countQuery` (counting without
 * the join), `countAtMost` (a LIMIT sub-select), `estimatedCount` (PostgreSQL's planner
 * estimate), `countKey`, and the count strategies of the numbered paginators over them.
 * Statements are read from Kysely's `log` option. On PostgreSQL the count and the page
 * are shown to run at once: the page completes while the count waits on a lock.
 */
import { Kysely, sql, type LogEvent, type SqlBool } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import type { ArticleRow } from '../../examples/reference-api/routes/articles.js'
import type { ReferenceDatabase } from '../../examples/reference-api/database.js'
import { addBulkArticles } from '../../test/helpers/bulk-articles.js'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request/request-factory.js'
import type { CountStrategy } from '../pagination/count-strategy.js'
import { LimitOffsetPagination } from '../pagination/limit-offset-pagination.js'
import { PageNumberPagination } from '../pagination/page-number-pagination.js'
import { createDialect, parseDatabaseUrl } from './database.js'
import { KyselyPageSource, type CountableQuery } from './kysely-page-source.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

const BULK = 20_000
/** Seeded articles (137: alice 69, bob 68) plus BULK split evenly between them. */
const TOTAL = 137 + BULK
const BY_AUTHOR = { alice: 69 + BULK / 2, bob: 68 + BULK / 2, nobody: 0 } as const

const COLUMNS = { id: { ref: 'articles.id', kind: 'integer' } } as const

function getRequest(query: string): ApiRequest {
  return createApiRequest({ method: 'GET', url: new URL(`http://test/api/articles/${query}`), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyPageSource counts on ${backend.name}`, () => {
    let database: TestDatabase
    let ref: ReferenceContext
    let db: Kysely<ReferenceDatabase>
    const statements: string[] = []

    beforeAll(async () => {
      database = await backend.create()
      ref = await openReferenceContext({ databaseUrl: database.url })
      await addBulkArticles(ref, BULK)
      db = new Kysely<ReferenceDatabase>({
        dialect: await createDialect(parseDatabaseUrl(database.url)),
        log: (event: LogEvent) => {
          if (event.level === 'query') statements.push(event.query.sql)
        },
      })
    }, 60_000)
    afterAll(async () => {
      await db?.destroy()
      await ref?.close()
      await database?.drop()
    })

    /** The reference API's article list (with the users join), filtered by author, with or without a join-free count query. */
    function source(author: string | null, withCountQuery: boolean): KyselyPageSource<never, never, ArticleRow> {
      const ids = db.selectFrom('gatehouse_users').select('id').where('username', '=', author ?? '')
      let query = db
        .selectFrom('articles')
        .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
        .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created'])
      let countQuery = db.selectFrom('articles').select('articles.id')
      if (author !== null) {
        query = query.where('articles.author_id', 'in', ids)
        countQuery = countQuery.where('articles.author_id', 'in', ids)
      }
      const counted: { countQuery?: CountableQuery } = withCountQuery ? { countQuery } : {}
      return new KyselyPageSource({ db, query, dialect: ref.database.dialect, columns: COLUMNS, orderBy: ['id'], ...counted }) as never
    }

    it('countQuery: the same counts, with no join in the count statement', async () => {
      for (const author of [null, 'alice', 'bob', 'nobody'] as const) {
        const expected = author === null ? TOTAL : BY_AUTHOR[author]
        expect(await source(author, false).count()).toBe(expected)
        statements.length = 0
        expect(await source(author, true).count()).toBe(expected)
        expect(statements).toHaveLength(1)
        expect(statements[0]).toMatch(/^select count\(\*\) as count from \(\(select "articles"\."id" from "articles"/)
        expect(statements[0]).not.toMatch(/join/)
      }
      // Without countQuery the page query (join included) is counted, as before.
      statements.length = 0
      await source(null, false).count()
      expect(statements[0]).toMatch(/inner join "gatehouse_users"/)
    })

    it('countAtMost: min(count, n) through a LIMIT sub-select', async () => {
      for (const [author, withCount] of [[null, true], ['alice', true], ['bob', false], ['nobody', true]] as const) {
        const total = author === null ? TOTAL : BY_AUTHOR[author]
        for (const n of [0, 1, 68, 10_068, 10_069, 10_070, 50_000]) {
          expect(await source(author, withCount).countAtMost(n), `${author} ${n}`).toBe(Math.min(total, n))
        }
      }
      statements.length = 0
      await source(null, true).countAtMost(1001)
      expect(statements[0]).toMatch(/^select count\(\*\) as count from \(select 1 as one from \(\(select "articles"\."id" from "articles"\)\) as page_source limit/)
    })

    it(backend.name === 'postgres' ? 'estimatedCount: a plausible planner estimate after ANALYZE' : 'estimatedCount: none on SQLite (null, no statement)', async () => {
      statements.length = 0
      const whole = await source(null, true).estimatedCount()
      const alice = await source('alice', true).estimatedCount()
      const joined = await source('bob', false).estimatedCount()
      if (backend.name === 'sqlite') {
        expect([whole, alice, joined]).toEqual([null, null, null])
        expect(statements).toEqual([])
        return
      }
      expect(statements.every((s) => s.startsWith('explain (format json) '))).toBe(true)
      // Unfiltered: reltuples scaled to the table's current size, within 10% after ANALYZE.
      expect(whole).toBeGreaterThan(TOTAL * 0.9)
      expect(whole).toBeLessThan(TOTAL * 1.1)
      // Filtered (a semi-join the planner guesses at): the right order of magnitude.
      for (const estimate of [alice, joined]) {
        expect(estimate).toBeGreaterThan(10_000 / 4)
        expect(estimate).toBeLessThan(10_000 * 4)
      }
    })

    it('countKey: the count statement and its parameters', () => {
      expect(source('alice', true).countKey()).toBe(source('alice', true).countKey())
      expect(source('alice', true).countKey()).not.toBe(source('bob', true).countKey())
      expect(source('alice', true).countKey()).not.toBe(source('alice', false).countKey())
      expect(source('alice', true).countKey()).toContain('"alice"')
    })

    /** Ids, count and next of a page, or the 404 detail. */
    async function outcome(paginator: PageNumberPagination | LimitOffsetPagination, author: string | null, query: string): Promise<unknown> {
      try {
        const page = await paginator.paginate(source(author, true), getRequest(query))
        return { ids: page?.items.map((r) => r.id), count: page?.count, next: page?.next ?? null, previous: page?.previous ?? null }
      } catch (error) {
        return { detail: (error as { detail?: unknown }).detail }
      }
    }

    it('every strategy shows the exact strategy\'s rows and links; counts as documented', async () => {
      const exact = new PageNumberPagination({ pageSize: 25 })
      const lastPage = Math.ceil(BY_AUTHOR['bob'] / 25)
      const strategies: CountStrategy[] = [{ capped: 1000 }, { capped: 100_000 }, 'estimated', { cachedMs: 60_000 }, 'none']
      for (const count of strategies) {
        const paginator = new PageNumberPagination({ pageSize: 25, count })
        for (const page of [1, 2, 39, 40, lastPage]) {
          const want = (await outcome(exact, 'bob', `?author=bob&page=${page}`)) as { ids: number[]; count: number; next: string | null }
          const got = (await outcome(paginator, 'bob', `?author=bob&page=${page}`)) as { ids: number[]; count: number | null; next: string | null }
          expect([got.ids, got.next], `${JSON.stringify(count)} page ${page}`).toEqual([want.ids, want.next])
          const final = page === lastPage
          if (count === 'none') expect(got.count).toBeNull()
          else if (final || (typeof count === 'object' && 'cachedMs' in count) || (typeof count === 'object' && 'capped' in count && count.capped >= want.count)) {
            expect(got.count).toBe(want.count)
          } else if (typeof count === 'object' && 'capped' in count) {
            expect(got.count).toBe(Math.max(count.capped, page * 25 + 1))
          } else if (backend.name === 'sqlite') {
            expect(got.count).toBe(want.count) // 'estimated' counts exactly on SQLite
          } else {
            expect(got.count).toBeGreaterThan(page * 25)
          }
        }
        const beyond = await outcome(paginator, 'bob', `?author=bob&page=${lastPage + 1}`)
        expect(beyond).toEqual({ detail: 'Invalid page.' })
        const last = await outcome(paginator, 'bob', '?author=bob&page=last')
        const lastSupported = (typeof count === 'object' && ('cachedMs' in count || count.capped >= BY_AUTHOR['bob'])) || (count === 'estimated' && backend.name === 'sqlite')
        expect(last).toEqual(lastSupported ? await outcome(exact, 'bob', '?author=bob&page=last') : { detail: 'Invalid page.' })
      }
    })

    it('limit/offset under every strategy: the exact rows and links', async () => {
      const exact = new LimitOffsetPagination({ defaultLimit: 25 })
      for (const count of [{ capped: 1000 }, 'estimated', { cachedMs: 60_000 }, 'none'] as CountStrategy[]) {
        const paginator = new LimitOffsetPagination({ defaultLimit: 25, count })
        for (const offset of [0, 990, 10_050, 10_068, 20_000]) {
          const want = (await outcome(exact, 'bob', `?author=bob&offset=${offset}`)) as { ids: number[]; next: string | null; previous: string | null }
          const got = (await outcome(paginator, 'bob', `?author=bob&offset=${offset}`)) as { ids: number[]; next: string | null; previous: string | null }
          expect([got.ids, got.next, got.previous], `${JSON.stringify(count)} offset ${offset}`).toEqual([want.ids, want.next, want.previous])
        }
      }
    })

    it('statements per request: exact sends count + page; cachedMs the page only once cached; none the page only', async () => {
      const run = async (paginator: PageNumberPagination, query: string): Promise<string[]> => {
        statements.length = 0
        await Promise.resolve(paginator.paginate(source('alice', true), getRequest(query))).catch((error: unknown) => {
          if ((error as { status?: number }).status !== 404) throw error
        })
        return statements.map((s) => (/^select count/.test(s) ? 'count' : /^explain/.test(s) ? 'explain' : /limit/.test(s) ? 'page' : s))
      }
      const both = (list: string[]): string[] => [...list].sort()
      expect(both(await run(new PageNumberPagination({ pageSize: 10 }), '?page=3'))).toEqual(['count', 'page'])
      expect(await run(new PageNumberPagination({ pageSize: 10 }), '?page=abc')).toEqual([])
      const cached = new PageNumberPagination({ pageSize: 10, count: { cachedMs: 60_000 } })
      expect(both(await run(cached, '?page=3'))).toEqual(['count', 'page'])
      expect(await run(cached, '?page=4')).toEqual(['page'])
      expect(await run(new PageNumberPagination({ pageSize: 10, count: 'none' }), '?page=3')).toEqual(['page'])
      expect(both(await run(new PageNumberPagination({ pageSize: 10, count: 'estimated' }), '?page=3'))).toEqual(
        backend.name === 'postgres' ? ['explain', 'page'] : ['count', 'page'],
      )
    })

    // PostgreSQL only (a pool runs statements at once; SQLite's one connection cannot): defined only there.
    if (backend.name === 'postgres') it('PostgreSQL: the page query completes while the count waits (they run at once)', async () => {
      await sql`create table count_gate as select id from articles`.execute(db)
      const holder = new pg.Client({ connectionString: database.url })
      await holder.connect()
      try {
        await holder.query('begin')
        await holder.query('lock table count_gate in access exclusive mode')
        const gated = new KyselyPageSource({
          db,
          query: db.selectFrom('articles').select(['articles.id as id']).where(sql<SqlBool>`true`),
          dialect: 'postgres',
          columns: COLUMNS,
          orderBy: ['id'],
          countQuery: (db as unknown as Kysely<{ count_gate: { id: number } }>).selectFrom('count_gate').select('id'),
        })
        statements.length = 0
        const pending = Promise.resolve(new PageNumberPagination({ pageSize: 10 }).paginate(gated, getRequest('?page=2')))
        let settled = false
        void pending.finally(() => {
          settled = true
        })
        // Kysely logs a statement when it completes: wait for the page query's entry while the count is blocked.
        for (let i = 0; i < 1000 && !statements.some((s) => / limit /.test(s)); i++) await new Promise((r) => setTimeout(r, 10))
        expect(statements.filter((s) => / limit /.test(s))).toHaveLength(1)
        expect(statements.some((s) => /count\(\*\)/.test(s))).toBe(false)
        expect(settled).toBe(false)
        await holder.query('commit')
        const page = await pending
        expect([page?.count, page?.items.map((r) => r.id)]).toEqual([TOTAL, [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]])
      } finally {
        await holder.end()
      }
    })
  })
}
