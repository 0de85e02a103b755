/**
 * How filtered pages run on a table of real size (the reference articles plus 20,000, then
 * ANALYZE), on SQLite and PostgreSQL:
 *
 * - the prepared source keeps one statement per filter shape: many requests with new values
 *   leave one named statement for the page and one for the count on PostgreSQL (a value in
 *   the text would leave one per value), and the count drops the join when the filters name
 *   only the count query's tables (it keeps it for a filter on the joined table);
 * - the planner uses an index for the filtered page and count: a `created` range
 *   (`articles_created_id`), `score` (`articles_score_id`), `id__in` (the primary key), and
 *   `title__istartswith`, `title__iexact` and SearchFilter's `=` and `^` prefixes with the
 *   index docs/filtering.md recommends for them.
 */
import { sql, type CompiledQuery, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import type { ReferenceDatabase } from '../../examples/reference-api/database.js'
import { ARTICLE_COLUMNS, ARTICLE_FILTERS, ARTICLE_SEARCH, articleSources, type ArticleRow } from '../../examples/reference-api/routes/articles.js'
import { FilterSet } from '../../src/pagination/filters/filter-set.js'
import { SearchFilter } from '../../src/pagination/filters/search-filter.js'
import type { Condition } from '../../src/core/filter-condition.js'
import type { RequestContext } from '../../src/core/pipeline.js'
import { createApiRequest } from '../../src/core/request/request-factory.js'
import { openDatabase, type Database } from '../../src/kysely/database.js'
import { KyselyPageSource } from '../../src/kysely/kysely-page-source.js'
import { addBulkArticles } from '../helpers/bulk-articles.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { TEST_SCRYPT } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const BULK = 20_000

function requestOf(query: string) {
  return createApiRequest({ method: 'GET', url: new URL(`http://test/api/articles/filtered/${query}`), headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

/** The reference route's condition for `query` (its filter set and search). */
function conditionOf(query: string): Condition {
  const req = requestOf(query)
  const parts = [ARTICLE_FILTERS.conditionFor(req), ARTICLE_SEARCH.conditionFor(req)].filter((c): c is Condition => c !== null)
  const [first] = parts
  if (first === undefined) throw new Error(`no condition in ${query}`)
  return parts.length === 1 ? first : { kind: 'and', conditions: parts }
}

/** A bulk minute (`addBulkArticles`: article 137 + i was created at 2023-01-01 + i minutes). */
const minute = (i: number): string => new Date(Date.UTC(2023, 0, 1) + i * 60_000).toISOString()

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`filtered pages on ${BULK} more articles (${backend.name})`, () => {
    let target: TestDatabase
    let ref: ReferenceContext
    /** One connection: PostgreSQL's pg_prepared_statements is per session. */
    let single: Database<ReferenceDatabase>
    const dialect = backend.name

    beforeAll(async () => {
      target = await backend.create()
      ref = await openReferenceContext({ databaseUrl: target.url, scrypt: TEST_SCRYPT })
      await addBulkArticles(ref, BULK)
      single = await openDatabase<ReferenceDatabase>(target.url, { poolSize: 1 })
    }, 120_000)
    afterAll(async () => {
      await single?.close()
      await ref?.close()
      await target?.drop()
    })

    /** The reference route's prepared source on the single connection. */
    const sources = () => articleSources({ db: single.db, database: { dialect } } as unknown as ReferenceContext)
    const ctx = { request: requestOf('') } as unknown as RequestContext

    it('one statement per filter shape, whatever the values; the count without the join unless a filter needs it', async () => {
      const source = sources()
      const counts: number[] = []
      for (let i = 0; i < 12; i++) {
        const filtered = source(ctx).filtered?.(conditionOf(`?score=${i % 10}&title__icontains=${encodeURIComponent(`bulk ${i}%_`)}&created__gte=${minute(i)}`))
        if (filtered === undefined) throw new Error('the prepared source has filtered()')
        counts.push(await filtered.count())
        await filtered.slice(0, 10)
      }
      // No bulk title holds "%_": the values reach the database as values.
      expect(counts.every((n) => n === 0)).toBe(true)
      const matching = source(ctx).filtered?.(conditionOf(`?score=7&title__icontains=bulk 1&created__gte=${minute(0)}`))
      expect(await matching?.count()).toBe(Array.from({ length: BULK }, (_, k) => k + 1).filter((i) => (i * 7) % 10 === 7 && `Bulk ${i}`.includes('Bulk 1')).length)
      // The search on the author (the joined table) is another shape; the count keeps the join there.
      for (const author of ['alice', 'bob', 'carol']) {
        const searched = source(ctx).filtered?.(conditionOf(`?search=${author}&score=3`))
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from articles a join gatehouse_users u on u.id = a.author_id where u.username = ${author} and a.score = 3`.execute(single.db)
        expect(await searched?.count()).toBe(Number(rows[0]?.n))
      }
      const countKey = source(ctx).filtered?.(conditionOf('?score=1&title__icontains=x'))?.countKey?.() ?? ''
      expect(countKey).not.toMatch(/join/)
      expect(countKey).toMatch(/^select count\(\*\) as count from \(\(select "articles"\."id" from "articles" where/)
      expect(source(ctx).filtered?.(conditionOf('?search=alice'))?.countKey?.() ?? '').toMatch(/inner join "gatehouse_users"/)
      if (dialect !== 'postgres') return
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like '%upper(%'`.execute(single.db)
      const texts = rows.map((r) => r.statement)
      const filteredByTitle = texts.filter((t) => t.includes('"articles"."score" = cast($1 as bigint)') && t.includes('"articles"."created" >='))
      // The page and the count of the first shape: prepared once each for twelve value sets.
      expect(filteredByTitle).toHaveLength(2)
      expect(filteredByTitle.filter((t) => t.startsWith('select count(*)'))).toHaveLength(1)
      // The route's source has `key: 'id'`: its page statement reads the page's ids first, filtered in the count query.
      expect(filteredByTitle.find((t) => !t.startsWith('select count(*)'))).toMatch(/where "articles"\."id" in \(select "articles"\."id" as "page_key" from "articles" where/)
    })

    /** The plan of `compiled` as text. */
    async function plan(db: Kysely<ReferenceDatabase>, compiled: CompiledQuery<unknown>): Promise<string> {
      const prefix = dialect === 'postgres' ? 'explain ' : 'explain query plan '
      const result = await db.executeQuery<Record<string, unknown>>({ ...compiled, sql: prefix + compiled.sql })
      return result.rows.map((r) => String(r['QUERY PLAN'] ?? r['detail'])).join('\n')
    }

    function source(db: Kysely<ReferenceDatabase>): KyselyPageSource<ReferenceDatabase, never, ArticleRow> {
      const query = db
        .selectFrom('articles')
        .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
        .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created'])
      return new KyselyPageSource({ db, query, dialect, columns: ARTICLE_COLUMNS, orderBy: ['id'], countQuery: db.selectFrom('articles').select('articles.id') }) as never
    }

    it('a filtered page and its count use the index of the filtered column', async () => {
      const db = ref.db
      const cases: readonly (readonly [string, RegExp])[] = [
        [`?created__gte=${minute(5000)}&created__lt=${minute(5060)}`, /articles_created_id/],
        ['?score=3&created__gte=2023-01-10', /articles_score_id|articles_created_id/],
        ['?id__in=5,77,15001', dialect === 'postgres' ? /articles_pkey/ : /USING INTEGER PRIMARY KEY/],
      ]
      for (const [query, index] of cases) {
        const filtered = source(db).filtered(conditionOf(query))
        expect(await plan(db, filtered.compileSlice(0, 10)), query).toMatch(index)
        expect(await plan(db, filtered.compileCount()), query).toMatch(index)
        expect(await plan(db, filtered.compileSlice(0, 10)), query).not.toMatch(dialect === 'postgres' ? /Seq Scan on articles/ : /^SCAN articles$/m)
      }
    })

    /** `title` lookups and search prefixes docs/filtering.md says its folded-title index serves, each with the rows it must find. */
    const TITLE_FILTERS = new FilterSet({ title: { type: 'text', lookups: ['iexact', 'istartswith'] } })
    const SEARCH_EXACT = new SearchFilter({ fields: ['=title'] })
    const SEARCH_PREFIX = new SearchFilter({ fields: ['^title'] })
    const titleCases: readonly (readonly [string, (req: ReturnType<typeof requestOf>) => Condition | null, string, readonly string[]])[] = [
      ['title__istartswith', (r) => TITLE_FILTERS.conditionFor(r), '?title__istartswith=bulk 1234', ['Bulk 1234', ...Array.from({ length: 10 }, (_, k) => `Bulk 1234${k}`).filter((t) => Number(t.slice(5)) <= BULK)]],
      ['title__iexact', (r) => TITLE_FILTERS.conditionFor(r), '?title__iexact=BULK 1234', ['Bulk 1234']],
      // A search term holds no space (terms split on it): a one-word title ("Gatehouse", added below) to find.
      ["SearchFilter '=title'", (r) => SEARCH_EXACT.conditionFor(r), '?search=GATEHOUSE', ['Gatehouse']],
      ["SearchFilter '^title'", (r) => SEARCH_PREFIX.conditionFor(r), '?search=gateh', ['Gatehouse', 'Gatehouses']],
    ]

    it("title__istartswith, title__iexact and the '=' and '^' search prefixes use the index docs/filtering.md recommends (PostgreSQL: upper(title) text_pattern_ops; SQLite: title COLLATE NOCASE)", async () => {
      const db = ref.db
      const created = dialect === 'postgres' ? new Date(Date.UTC(2022, 0, 1)) : '2022-01-01T00:00:00.000Z'
      await db.insertInto('articles').values(['Gatehouse', 'Gatehouses', 'The Gatehouse'].map((title) => ({ title, author_id: 1, score: 0, created }))).execute()
      const filteredOf = (query: string, conditionFor: (req: ReturnType<typeof requestOf>) => Condition | null) => {
        const condition = conditionFor(requestOf(query))
        if (condition === null) throw new Error(`no condition in ${query}`)
        return source(db).filtered(condition)
      }
      for (const [name, conditionFor, query] of titleCases) {
        expect(await plan(db, filteredOf(query, conditionFor).compileSlice(0, 10)), name).toMatch(dialect === 'postgres' ? /Seq Scan on articles|articles_pkey/ : /SCAN articles/)
      }
      if (dialect === 'postgres') await sql`create index articles_title_upper on articles (upper(title) text_pattern_ops)`.execute(db)
      else await sql`create index articles_title_nocase on articles (title collate nocase)`.execute(db)
      await sql`analyze`.execute(db)
      const index = dialect === 'postgres' ? /articles_title_upper/ : /articles_title_nocase/
      for (const [name, conditionFor, query, titles] of titleCases) {
        const filtered = filteredOf(query, conditionFor)
        expect(await plan(db, filtered.compileSlice(0, 10)), name).toMatch(index)
        expect(await plan(db, filtered.compileCount()), name).toMatch(index)
        expect((await filtered.all()).map((r) => r.title), name).toEqual(titles)
      }
      if (dialect !== 'postgres') return
      // preparePageSource runs named statements, which PostgreSQL may switch to a generic plan after five
      // runs: there `upper(title) like upper($1)` has no constant prefix, so no index range. It keeps planning
      // with the value (the generic plan, a scan, costs more), so the index serves the prepared route as above.
      const prepared = sources()
      for (const prefix of ['bulk 1', 'bulk 12', 'bulk 123', 'bulk 1234', 'bulk 2', 'bulk 23', 'bulk 234', 'gate']) {
        const filtered = prepared(ctx).filtered?.(conditionOf(`?title__istartswith=${encodeURIComponent(prefix)}`))
        await filtered?.slice(0, 10)
        await filtered?.count()
      }
      // The page and the count of that one shape (the first test's search on title or author is another).
      const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`select generic_plans, custom_plans from pg_prepared_statements
        where (statement like '%where upper("articles"."title") like upper($1) order by%' or statement like '%where upper("articles"."title") like upper($1))) as page_source')
        and statement not like '%pg_prepared_statements%' order by statement`.execute(single.db)
      // Each planned with its value, every time.
      expect(rows.map((r) => [Number(r.generic_plans), Number(r.custom_plans)])).toEqual([[0, 8], [0, 8]])
    })
  })
}
