/**
 * A filter value can never change the SQL's shape. For the reference API's filter set and
 * search, and a filter set with every lookup (exact, iexact, in, gt/gte/lt/lte, contains,
 * icontains, startswith, istartswith, isnull, range, over integers, floats, text and
 * date-times) and every search prefix (`^ = @ $`, the last two on PostgreSQL), arbitrary
 * client strings (quotes, `%`, `_`, backslash, NUL, commas, unicode, 16,000 characters)
 * compile, on SQLite and PostgreSQL, to exactly the SQL text of a canonical value of the same
 * condition shape: the page, the count, a keyset seek, and the prepared source's count
 * statement. The client's text only ever reaches the statement as a bound parameter. Each
 * statement then runs on the real database: no error (PostgreSQL's refusal of an invalid
 * regular expression aside, which `listHandler` answers 400), and the rows and count the
 * array source (or SQLite's `LIKE` model) gives on the same rows.
 */
import fc from 'fast-check'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import type { ReferenceDatabase } from '../../examples/reference-api/database.js'
import { ARTICLE_COLUMNS, ARTICLE_FILTERS, ARTICLE_SEARCH, type ArticleRow } from '../../examples/reference-api/routes/articles.js'
import { allOf, shapeOf, valuesOf, type Condition } from '../../src/core/filter-condition.js'
import { ValidationError } from '../../src/core/errors.js'
import { createApiRequest } from '../../src/core/request/request-factory.js'
import { conditionSql, conditionValues, escapeLike } from '../../src/kysely/filter-sql.js'
import { KyselyPageSource } from '../../src/kysely/kysely-page-source.js'
import { preparePageSource } from '../../src/kysely/prepared-page-source.js'
import { FilterSet } from '../../src/pagination/filters/filter-set.js'
import { SearchFilter } from '../../src/pagination/filters/search-filter.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { canonical, expectedRows, postgresOnly } from '../helpers/filter-models.js'
import { TEST_SCRYPT } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

/** Every lookup over the reference table's columns (parameters prefixed `x_` apart from the reference set's). */
const EVERY_LOOKUP = new FilterSet({
  x_id: { type: 'integer', field: 'id', lookups: ['exact', 'in', 'gt', 'gte', 'lt', 'lte', 'range', 'isnull'] },
  x_score: { type: 'number', field: 'score', lookups: ['exact', 'gt', 'lte', 'in', 'range'] },
  x_title: { type: 'text', field: 'title', lookups: ['exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'in', 'isnull'] },
  x_author: { type: 'text', field: 'author', lookups: ['exact', 'iexact', 'icontains'] },
  x_created: { type: 'datetime', field: 'created', lookups: ['exact', 'gt', 'gte', 'lt', 'lte', 'range', 'in', 'isnull'] },
})
const EVERY_PREFIX = { sqlite: new SearchFilter({ fields: ['title', '^title', '=author'], param: 'q' }), postgres: new SearchFilter({ fields: ['title', '^title', '=author', '@title', '$title'], param: 'q' }) }

/** Strings a client may send: anything, the characters SQL and LIKE care about, a marker, very long ones. */
const SPECIAL = ["'", '"', '%', '_', '\\', '\u0000', ',', ' ', '\t', ';', '--', '/*', '$1', '?', ':p', 'é', 'É', 'ß', 'ı', '𝔘', '\u00a0', '(', '[', '*', '+', 'Article']
const clientString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...SPECIAL), { maxLength: 8 }).map((parts) => parts.join('')) },
  { weight: 2, arbitrary: fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([a, b]) => `${a}QZXMARK${b}`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('%', '_\\', "a'b", 'é,', 'x'), fc.integer({ min: 1000, max: 16_000 })).map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)) },
)
/** Values that read (so most requests reach the SQL), for the typed parameters. */
const numberText = fc.oneof(fc.integer({ min: -5, max: 150 }).map(String), fc.constantFrom('2.5', '-0', '1e50', '9'.repeat(30), '٣', ' 7 '))
const dateText = fc.oneof(
  fc.integer({ min: -100, max: 200 }).map((m) => new Date(Date.UTC(2024, 0, 1, 0, m)).toISOString()),
  fc.constantFrom('2024-01-01', '2024-01-01T00:30:00.000001', '0001-01-01T00:00', '9999-12-31T23:59:59.999999', '2024-01-01T00:30+14:00'),
)
const listOf = (item: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.array(item, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(','))

function valueFor(name: string): fc.Arbitrary<string> {
  const list = name.endsWith('__in') || name.endsWith('__range')
  if (name.startsWith('id') || name.startsWith('score') || name.startsWith('x_id') || name.startsWith('x_score')) {
    return fc.oneof(list ? listOf(numberText) : numberText, clientString)
  }
  if (name.startsWith('created') || name.startsWith('x_created')) return fc.oneof(list ? listOf(dateText) : dateText, clientString)
  if (name.endsWith('__isnull')) return fc.constantFrom('true', 'false', '1', '0', 'maybe', '')
  return list ? fc.oneof(listOf(clientString), clientString) : clientString
}

type Param = readonly [string, string]

function requestArb(dialect: 'sqlite' | 'postgres'): fc.Arbitrary<Param[]> {
  const names = [...ARTICLE_FILTERS.names, 'search', ...EVERY_LOOKUP.names, EVERY_PREFIX[dialect].param]
  return fc.shuffledSubarray(names, { minLength: 1, maxLength: 5 }).chain((picked) => fc.tuple(...picked.map((name) => valueFor(name).map((value): Param => [name, value]))))
}

function requestOf(params: readonly Param[]) {
  const url = new URL('http://test/api/articles/')
  for (const [name, value] of params) url.searchParams.append(name, value)
  return createApiRequest({ method: 'GET', url, headers: { get: () => null }, remoteAddress: null, readBody: async () => null })
}

/** The request's condition (filters of both sets, both searches), or `null` when a value is refused (a 400). */
function conditionOf(params: readonly Param[], dialect: 'sqlite' | 'postgres'): Condition | null | 'refused' {
  const req = requestOf(params)
  try {
    const parts = [ARTICLE_FILTERS.conditionFor(req), ARTICLE_SEARCH.conditionFor(req), EVERY_LOOKUP.conditionFor(req), EVERY_PREFIX[dialect].conditionFor(req)]
    return allOf(parts.filter((c): c is Condition => c !== null))
  } catch (error) {
    // Only django-filter's 400 may stop a request before the SQL.
    expect(error).toBeInstanceOf(ValidationError)
    return 'refused'
  }
}

/** Rows beside the seed whose titles hold what LIKE and case folding care about. */
const TRICKY_TITLES = ['100% pure', '100 pure', 'a_b', 'axb', 'back\\slash', "it's", 'Été', 'été', 'ÉTÉ', 'Straße', 'STRASSE', 'ınk', 'INK', 'Σίσυφος', 'QZXMARK', 'x,y', '%_\\']

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`a filter value never changes the SQL (${backend.name})`, () => {
    let database: TestDatabase
    let ref: ReferenceContext
    let db: Kysely<ReferenceDatabase>
    let base: KyselyPageSource<ReferenceDatabase, never, ArticleRow>
    let rows: readonly ArticleRow[]
    const dialect = backend.name
    /** The reference API's list query (its join included). */
    const articles = () =>
      db
        .selectFrom('articles')
        .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
        .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created'])

    beforeAll(async () => {
      database = await backend.create()
      ref = await openReferenceContext({ databaseUrl: database.url, scrypt: TEST_SCRYPT })
      db = ref.db
      const created = (i: number): string | Date => (dialect === 'postgres' ? new Date(Date.UTC(2024, 1, 1, 0, i)) : new Date(Date.UTC(2024, 1, 1, 0, i)).toISOString())
      await db
        .insertInto('articles')
        .values(TRICKY_TITLES.map((title, i) => ({ title, author_id: 1 + (i % 2), score: i % 10, created: created(i) as never })))
        .execute()
      base = new KyselyPageSource({ db, query: articles(), dialect, columns: ARTICLE_COLUMNS, orderBy: ['id'], countQuery: db.selectFrom('articles').select('articles.id') }) as never
      rows = await base.all()
      expect(rows.length).toBe(137 + TRICKY_TITLES.length)
    }, 60_000)
    afterAll(async () => {
      await ref?.close()
      await database?.drop()
    })

    it('compiles every generated request to its shape’s SQL text, the values bound, and runs it as the array source does', async () => {
      const prepared = preparePageSource({ db, dialect, columns: ARTICLE_COLUMNS, orderBy: ['id'], query: articles })
      let compared = 0
      let refused = 0
      await fc.assert(
        fc.asyncProperty(requestArb(dialect), async (params) => {
          const condition = conditionOf(params, dialect)
          if (condition === 'refused') {
            refused++
            return
          }
          if (condition === null) return
          const other = canonical(condition)
          expect(shapeOf(other)).toBe(shapeOf(condition))
          const actual = base.filtered(condition)
          const same = base.filtered(other)
          const seek = { ordering: [{ field: 'created', descending: true }, { field: 'id', descending: false }], after: [new Date(Date.UTC(2024, 0, 1, 1)), 5], reverse: false, limit: 10 }
          const statements = [
            [actual.compileSlice(20, 10), same.compileSlice(20, 10)],
            [actual.compileCount(), same.compileCount()],
            [actual.compileSeek(seek), same.compileSeek(seek)],
          ] as const
          for (const [a, b] of statements) {
            expect(a.sql).toBe(b.sql)
            expect(a.parameters).toHaveLength(b.parameters.length)
            expect(a.sql).not.toContain('QZXMARK')
            // Every string the client sent (as read) is a parameter: itself or its escaped LIKE pattern.
            for (const value of valuesOf(condition)) {
              if (typeof value !== 'string') continue
              const forms = [value, escapeLike(value), `%${escapeLike(value)}%`, `${escapeLike(value)}%`]
              expect(a.parameters.some((p) => typeof p === 'string' && forms.includes(p))).toBe(true)
            }
          }
          // The prepared source: one statement text per shape (its count key is the text, a NUL, the parameters).
          const keyText = (key: string): string => key.slice(0, key.indexOf('\u0000'))
          const countText = (c: Condition): string => keyText(prepared().filtered?.(c).countKey?.() ?? '')
          expect(countText(condition)).not.toBe('')
          expect(countText(condition)).toBe(countText(other))
          // A request binds its values without building SQL: exactly what the compilation handed its slot, in order.
          const slotted: unknown[] = []
          conditionSql(condition, dialect, (field) => ARTICLE_COLUMNS[field] as { ref: string; kind: string }, (value) => (slotted.push(value), value))
          expect(conditionValues(condition, dialect)).toEqual(slotted)

          // Run on the real database: no error but PostgreSQL's invalid regular expression.
          let page: readonly ArticleRow[]
          let count: number
          try {
            ;[page, count] = await Promise.all([actual.slice(0, 500), actual.count()])
          } catch (error) {
            expect(postgresOnly(condition) && (error as { code?: unknown }).code === '2201B', String(error)).toBe(true)
            return
          }
          expect(count).toBe(page.length)
          // The prepared source (statements compiled per shape, values bound per request) reads the same rows.
          const preparedSource = prepared().filtered?.(condition)
          const [preparedPage, preparedCount] = await Promise.all([preparedSource?.slice(0, 500), preparedSource?.count()])
          expect(preparedPage?.map((r) => r.id)).toEqual(page.map((r) => r.id))
          expect(preparedCount).toBe(count)
          if (postgresOnly(condition)) return
          const expected = await expectedRows(rows, condition, dialect)
          expect(page.map((r) => r.id)).toEqual(expected.map((r) => r.id))
          compared++
        }),
        { numRuns: 300, seed: 4242 },
      )
      // The generator reaches the SQL most of the time, and some values are refused.
      expect(compared).toBeGreaterThan(100)
      expect(refused).toBeGreaterThan(10)
    }, 240_000)

    it('a value in the SQL text is impossible even for a value that reads as SQL', async () => {
      const condition = conditionOf([['title__icontains', "'); drop table articles; --"], ['search', "' or 1=1 --"]], dialect)
      expect(condition).not.toBeNull()
      expect(condition).not.toBe('refused')
      const compiled = base.filtered(condition as Condition).compileSlice(0, 10)
      expect(compiled.sql).not.toMatch(/drop table|1=1/i)
      expect(await base.filtered(condition as Condition).count()).toBe(0)
      expect(Number((await sql<{ n: number | string }>`select count(*) as n from articles`.execute(db)).rows[0]?.n)).toBe(rows.length)
    })
  })
}
