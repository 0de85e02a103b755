/**
 * A page read by its keys (`KyselyPageSource`'s `key` option): the page's ids from the count
 * query first, then the rows and joins of those ids. On SQLite and PostgreSQL, over 20,000 bulk
 * articles, generated filters, orderings, offsets and limits read exactly the rows (in the
 * same order) of the same source without `key`; the two-step statement is used only when the
 * count query holds every column it needs, and a narrow filtered page's key step is answered
 * by the index alone.
 */
import fc from 'fast-check'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import type { ReferenceDatabase } from '../../examples/reference-api/database.js'
import { ARTICLE_COLUMNS, type ArticleRow } from '../../examples/reference-api/routes/articles.js'
import type { Condition } from '../core/filter-condition.js'
import { parseOrdering } from '../pagination/cursor-pagination.js'
import { KyselyPageSource } from './kysely-page-source.js'
import { addBulkArticles } from '../../test/helpers/bulk-articles.js'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

const BULK = 20_000
const EPOCH = Date.UTC(2023, 0, 1)

/** Filters over the count query's table, and one on the joined author (which the count query cannot take). */
const conditionArb: fc.Arbitrary<Condition | null> = fc.oneof(
  fc.constant(null),
  fc.tuple(fc.integer({ min: 0, max: BULK }), fc.integer({ min: 1, max: 400 })).map(([from, minutes]): Condition => ({
    kind: 'and',
    conditions: [
      { kind: 'compare', field: 'created', op: '>=', value: new Date(EPOCH + from * 60_000) },
      { kind: 'compare', field: 'created', op: '<', value: new Date(EPOCH + (from + minutes) * 60_000) },
    ],
  })),
  fc.tuple(fc.constantFrom('=', '>=', '<') as fc.Arbitrary<'=' | '>=' | '<'>, fc.integer({ min: 0, max: 9 })).map(([op, value]): Condition => ({ kind: 'compare', field: 'score', op, value })),
  fc.constantFrom('1', 'Bulk 19', 'rticle').map((value): Condition => ({ kind: 'text', field: 'title', match: 'contains', caseInsensitive: true, value })),
  fc.constantFrom('alice', 'bob').map((value): Condition => ({ kind: 'text', field: 'author', match: 'exact', caseInsensitive: false, value })),
)
/** Total orderings (each ends in the unique id), one of them on the joined author. */
const orderingArb = fc.constantFrom('id', '-id', 'score,id', '-score,-id', '-created,id', 'title,id', 'author,id')

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`a page read by its keys (${backend.name})`, () => {
    let database: TestDatabase
    let ref: ReferenceContext
    let direct: KyselyPageSource<ReferenceDatabase, never, ArticleRow>
    let byKeys: KyselyPageSource<ReferenceDatabase, never, ArticleRow>

    beforeAll(async () => {
      database = await backend.create()
      ref = await openReferenceContext({ databaseUrl: database.url })
      await addBulkArticles(ref, BULK)
      const db = ref.db as Kysely<ReferenceDatabase>
      const options = {
        db,
        dialect: backend.name,
        columns: ARTICLE_COLUMNS,
        orderBy: ['id'],
        query: db
          .selectFrom('articles')
          .innerJoin('gatehouse_users as u', 'u.id', 'articles.author_id')
          .select(['articles.id as id', 'articles.title as title', 'u.username as author', 'articles.score as score', 'articles.created as created']),
        countQuery: db.selectFrom('articles').select('articles.id'),
      }
      direct = new KyselyPageSource(options) as never
      byKeys = new KyselyPageSource({ ...options, key: 'id' }) as never
    }, 60_000)
    afterAll(async () => {
      await ref?.close()
      await database?.drop()
    })

    const shaped = (source: KyselyPageSource<ReferenceDatabase, never, ArticleRow>, condition: Condition | null, ordering: string) => {
      const filtered = condition === null ? source : source.filtered(condition)
      return filtered.orderedBy(parseOrdering(ordering.split(','), 'id'))
    }

    it('reads the rows of the same source without a key, for generated filters, orderings, offsets and limits', async () => {
      let twoStep = 0
      await fc.assert(
        fc.asyncProperty(conditionArb, orderingArb, fc.integer({ min: 0, max: BULK + 200 }), fc.integer({ min: 1, max: 25 }), async (condition, ordering, offset, limit) => {
          const a = shaped(direct, condition, ordering)
          const b = shaped(byKeys, condition, ordering)
          const sql = b.compileSlice(offset, limit).sql
          // Two steps only when the count query holds the filter's and the ordering's columns.
          const needsJoin = ordering.startsWith('author') || (condition !== null && 'field' in condition && condition.field === 'author')
          expect(/ in \(select/.test(sql), sql).toBe(!needsJoin)
          if (!needsJoin) twoStep++
          const [expected, actual] = await Promise.all([a.slice(offset, limit), b.slice(offset, limit)])
          expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id))
          expect(actual).toEqual(expected)
        }),
        { numRuns: 80, seed: 4243 },
      )
      expect(twoStep).toBeGreaterThan(40)
    }, 120_000)

    it('a narrow filtered page takes its keys from the (created, id) index alone', async () => {
      const condition: Condition = {
        kind: 'and',
        conditions: [
          { kind: 'compare', field: 'created', op: '>=', value: new Date(EPOCH + 5_000 * 60_000) },
          { kind: 'compare', field: 'created', op: '<', value: new Date(EPOCH + 5_100 * 60_000) },
        ],
      }
      const compiled = byKeys.filtered(condition).compileSlice(10, 10)
      const prefix = backend.name === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN '
      const plan = (await ref.db.executeQuery<Record<string, unknown>>({ ...compiled, sql: prefix + compiled.sql })).rows
        .map((row) => String(row['detail'] ?? row['QUERY PLAN']))
        .join('\n')
      if (backend.name === 'sqlite') expect(plan).toMatch(/COVERING INDEX articles_created_id/)
      else expect(plan).toMatch(/articles_created_id/)
      expect(plan).not.toMatch(backend.name === 'sqlite' ? /\bSCAN articles\b/ : /Seq Scan on articles/)
      const rows = await byKeys.filtered(condition).slice(10, 10)
      expect(rows.map((r) => r.created instanceof Date ? r.created.toISOString() : r.created)).toEqual(
        Array.from({ length: 10 }, (_, i) => new Date(EPOCH + (5_010 + i) * 60_000).toISOString()),
      )
    })

    it('refuses a key without a column', () => {
      expect(() => new KyselyPageSource({ db: ref.db, dialect: backend.name, columns: ARTICLE_COLUMNS, orderBy: ['id'], query: ref.db.selectFrom('articles').selectAll(), key: 'nope' })).toThrow(/no column for field "nope"/)
    })
  })
}
