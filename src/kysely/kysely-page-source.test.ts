/**
 * The keyset queries KyselyPageSource generates use the indexes, on SQLite
 * (EXPLAIN QUERY PLAN) and PostgreSQL (EXPLAIN): no full scan of `articles` for
 * the `-created` and `-score, id` cursors, forward and back, at any depth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openReferenceContext, type ReferenceContext } from '../../examples/reference-api/context.js'
import { articleSource, type ArticleRow } from '../../examples/reference-api/routes/articles.js'
import type { RequestContext } from '../core/view.js'
import type { KeyValue, OrderingField, SeekSource } from '../pagination/paginator.js'
import { parseOrdering } from '../pagination/cursor-pagination.js'
import { KyselyPageSource } from './kysely-page-source.js'
import { addBulkArticles } from '../../test/helpers/bulk-articles.js'
import { BACKENDS, type TestDatabase } from '../../test/helpers/databases.js'
import { backendUnavailable } from '../../test/helpers/requirements.js'

const BULK = 20_000

/** The reference API's source of one request: a prepared page source, which compiles its seeks as `KyselyPageSource` does. */
type ExplainableSource = SeekSource<ArticleRow> & Pick<KyselyPageSource<never, never, ArticleRow>, 'compileSeek'>

function sourceFor(ref: ReferenceContext, query = ''): ExplainableSource {
  const ctx = { request: { url: new URL(`http://test/api/articles/cursor/${query}`) } } as unknown as RequestContext
  return articleSource(ref, ctx) as ExplainableSource
}

async function plan(ref: ReferenceContext, source: ExplainableSource, ordering: OrderingField[], after: KeyValue[] | null, reverse: boolean): Promise<string> {
  const compiled = source.compileSeek({ ordering, after, reverse, limit: 11 })
  const prefix = ref.database.dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN '
  const result = await ref.db.executeQuery<Record<string, unknown>>({ ...compiled, sql: prefix + compiled.sql })
  return result.rows.map((row) => String(row['detail'] ?? row['QUERY PLAN'] ?? JSON.stringify(row))).join('\n')
}

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`KyselyPageSource keyset plans on ${backend.name}`, () => {
    let database: TestDatabase
    let ref: ReferenceContext

    beforeAll(async () => {
      database = await backend.create()
      ref = await openReferenceContext({ databaseUrl: database.url })
      await addBulkArticles(ref, BULK)
    }, 60_000)
    afterAll(async () => {
      await ref?.close()
      await database?.drop()
    })

    // SQLite: any SCAN of articles (with or without an index) walks the whole table; PostgreSQL: a Seq Scan.
    const fullScan = (text: string): boolean =>
      backend.name === 'sqlite' ? /\bSCAN articles\b/.test(text) : /Seq Scan on articles/.test(text)

    it('id alone: a plain range seek, no union or sub-select', async () => {
      const source = sourceFor(ref)
      const ordering = parseOrdering('id', 'id')
      for (const reverse of [false, true]) {
        const compiled = source.compileSeek({ ordering, after: [9000], reverse, limit: 11 })
        expect(compiled.sql).not.toMatch(/union|seek_/)
        expect(compiled.sql).toMatch(reverse ? /"articles"\."id" < / : /"articles"\."id" > /)
        const rows = await source.seek({ ordering, after: [9000], reverse, limit: 3 })
        expect(rows.map((r) => r.id)).toEqual(reverse ? [8999, 8998, 8997] : [9001, 9002, 9003])
      }
    })

    it('-created: forward and back seeks use the (created, id) index, never a full scan', async () => {
      const source = sourceFor(ref)
      const ordering = parseOrdering('-created', 'id')
      const middle = await source.seek({ ordering, after: null, reverse: false, limit: BULK / 2 })
      const boundary = middle[middle.length - 1]
      if (boundary === undefined) throw new Error('no rows')
      const key = [...source.keyOf(boundary, ordering)]
      for (const reverse of [false, true]) {
        const text = await plan(ref, source, ordering, key, reverse)
        expect(text).toMatch(/articles_created_id/)
        expect(fullScan(text), text).toBe(false)
        if (process.env['SHOW_PLANS'] !== undefined) console.log(`${backend.name} -created reverse=${reverse}\n${text}`)
      }
    })

    it('-score, id (mixed directions): each branch seeks the (score, id) index', async () => {
      const source = sourceFor(ref)
      const ordering = parseOrdering(['-score', 'id'], 'id')
      // `score` (10 values) is not nearlyUnique: per-prefix branches, never one statement over a tie group.
      expect(source.compileSeek({ ordering, after: [5, 9000], reverse: false, limit: 11 }).sql).toMatch(/union all/)
      const text = await plan(ref, source, ordering, [5, 9000], false)
      expect(text).toMatch(/articles_score_id/)
      expect(fullScan(text), text).toBe(false)
    })

    it('created ascending (uniform directions) uses the index; PostgreSQL gets one row-value comparison', async () => {
      const source = sourceFor(ref)
      const ordering = parseOrdering('created', 'id')
      const compiled = source.compileSeek({ ordering, after: ['2023-01-05T00:00:00.000Z', 100], reverse: false, limit: 11 })
      if (backend.name === 'postgres') expect(compiled.sql).toMatch(/\("articles"\."created", "articles"\."id"\) > \(\$\d+, \$\d+\)/)
      // `created` is declared nearlyUnique: one statement, no union.
      else expect(compiled.sql).toMatch(/"articles"\."created" >= \? and \("articles"\."created" > \? or "articles"\."id" > \?\)/)
      const text = await plan(ref, source, ordering, [backend.name === 'postgres' ? new Date('2023-01-05T00:00:00Z') : '2023-01-05T00:00:00.000Z', 100], false)
      expect(text).toMatch(/articles_created_id/)
      expect(fullScan(text), text).toBe(false)
    })

    for (const spec of [['-score', 'id'], ['-score', '-id'], ['created'], ['-created'], ['-id'], ['-created', '-id'], ['created', '-id']]) {
      it(`${spec.join(', ')}: the same rows as a full sort, at depth, both ways`, async () => {
        const source = sourceFor(ref, '?author=bob')
        const ordering = parseOrdering(spec, 'id')
        const all = await source.seek({ ordering, after: null, reverse: false, limit: BULK * 2 })
        expect(all.length).toBe(68 + BULK / 2)
        const sign = (f: OrderingField, c: number): number => (f.descending ? -c : c)
        const cmp = (a: ArticleRow, b: ArticleRow): number => {
          for (const f of ordering) {
            const x = f.field === 'created' ? new Date(a.created).getTime() : (a[f.field as keyof ArticleRow] as number)
            const y = f.field === 'created' ? new Date(b.created).getTime() : (b[f.field as keyof ArticleRow] as number)
            if (x !== y) return sign(f, x < y ? -1 : 1)
          }
          return 0
        }
        expect(all.map((r) => r.id)).toEqual([...all].sort(cmp).map((r) => r.id))
        for (const at of [0, 68, 5000, all.length - 3]) {
          const row = all[at]
          if (row === undefined) throw new Error('missing row')
          const key = [...source.keyOf(row, ordering)]
          const forward = await source.seek({ ordering, after: key, reverse: false, limit: 5 })
          expect(forward.map((r) => r.id)).toEqual(all.slice(at + 1, at + 6).map((r) => r.id))
          const back = await source.seek({ ordering, after: key, reverse: true, limit: 5 })
          expect(back.map((r) => r.id)).toEqual(all.slice(Math.max(0, at - 5), at).reverse().map((r) => r.id))
        }
        expect(await source.count()).toBe(68 + BULK / 2)
      })
    }
  })
}
