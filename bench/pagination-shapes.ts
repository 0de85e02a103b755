// Where the time of a cursor page goes, and what other keyset SQL shapes would cost.
//   npx tsx bench/pagination-shapes.ts [--db sqlite|postgres|both] [--rows 1000000] [--runs 400]
// For each cursor ordering: the whole `paginate()` call (first page / deep page), the library's
// own seek SQL executed alone (KyselyPageSource.compileSeek → db.executeQuery), the cursor codec,
// and, clearly marked "alt", hand-written alternative shapes for the same deep page (not library
// code: they show what a change to the page source would buy). Markdown on stdout.
import { Command, InvalidArgumentError } from 'commander'
import { sql, type CompiledQuery } from 'kysely'
import { KyselyPageSource, type ColumnSpec } from '../src/kysely/kysely-page-source.js'
import { CursorPagination } from '../src/pagination/cursor-pagination.js'
import type { KeyValue } from '../src/pagination/paginator.js'
import { listRequest } from './pagination-cases.js'
import { createPostgresBench, createSqliteBench, type BenchDatabase } from './pagination-data.js'
import { formatMs, markdownTable, measureInterleaved } from './pagination-timing.js'

function positiveInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
  return n
}

const opts = new Command('pagination-shapes')
  .option('--rows <n>', 'rows', positiveInt, 1_000_000)
  .option('--db <which>', 'sqlite, postgres or both', 'both')
  .option('--runs <n>', 'timed runs per line', positiveInt, 400)
  .option('--depth <n>', 'deep page number', positiveInt, 90_000)
  .parse()
  .opts<{ rows: number; db: string; runs: number; depth: number }>()

const COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  id: { ref: 'articles.id', kind: 'integer' },
  created: { ref: 'articles.created', kind: 'timestamp' },
}
const SELECT = sql.raw('select id, title, author_id, score, created from articles')

/** Hand-written alternatives for the deep page of one ordering (bound values, same key). */
function alternatives(bench: BenchDatabase, order: string, key: readonly KeyValue[]): [string, () => Promise<unknown>][] {
  const run = (q: ReturnType<typeof sql>): (() => Promise<unknown>) => {
    const compiled: CompiledQuery = q.compile(bench.db)
    return () => bench.db.executeQuery(compiled)
  }
  // The tie group of the boundary row sorts before every row of the `created <` branch, so the
  // UNION ALL's result is the two branches one after the other: two plain, index-ordered queries
  // (the second only when the first returns fewer than 11 rows) give the same rows without a merge.
  const twoQueries = (eq: ReturnType<typeof sql>, rest: ReturnType<typeof sql>): (() => Promise<unknown>) => {
    const first = eq.compile(bench.db)
    const second = rest.compile(bench.db)
    return async () => {
      const { rows } = await bench.db.executeQuery(first)
      if (rows.length < 11) await bench.db.executeQuery(second)
    }
  }
  const [a, b] = key
  if (order === 'id') return [['alt: plain `where id > ? order by id limit 11` (no sub-select)', run(sql`${SELECT} where id > ${a} order by id limit 11`)]]
  if (order === '-created') {
    return [
      ['alt: same order [-created, id], expanded `created <= ? and (created < ? or id > ?)`',
        run(sql`${SELECT} where created <= ${a} and (created < ${a} or id > ${b}) order by created desc, id asc limit 11`)],
      ['alt: same order, the two branches as two sequential queries',
        twoQueries(sql`${SELECT} where created = ${a} and id > ${b} order by id asc limit 11`,
          sql`${SELECT} where created < ${a} order by created desc, id asc limit 11`)],
    ]
  }
  return [
    ['alt: row value `(created, id) < (?, ?)`', run(sql`${SELECT} where (created, id) < (${a}, ${b}) order by created desc, id desc limit 11`)],
    ['alt: `created <= ? and (created < ? or id < ?)`',
      run(sql`${SELECT} where created <= ${a} and (created < ${a} or id < ${b}) order by created desc, id desc limit 11`)],
    ['alt: the two branches as two sequential queries',
      twoQueries(sql`${SELECT} where created = ${a} and id < ${b} order by id desc limit 11`,
        sql`${SELECT} where created < ${a} order by created desc, id desc limit 11`)],
  ]
}

async function run(bench: BenchDatabase): Promise<string> {
  const db = bench.db
  const source = (orderBy: readonly string[]): KyselyPageSource<never, never, Record<string, unknown>> =>
    new KyselyPageSource({
      db,
      query: db.selectFrom('articles').select(['id', 'title', 'author_id', 'score', 'created']),
      dialect: bench.dialect,
      columns: COLUMNS,
      orderBy,
    }) as unknown as KyselyPageSource<never, never, Record<string, unknown>>
  const rows: string[][] = []
  for (const order of [['id'], ['-created'], ['-created', '-id']]) {
    const paginator = new CursorPagination({ pageSize: 10, ordering: order })
    const sourceOrder = paginator.ordering.map((f) => `${f.descending ? '-' : ''}${f.field}`)
    const [row] = await source(sourceOrder).slice((opts.depth - 1) * 10 - 1, 1)
    if (row === undefined) throw new Error('table too small for --depth')
    const key = source(sourceOrder).keyOf(row, paginator.ordering)
    const cursor = paginator.encode({ reverse: false, key })
    const firstSql = source(sourceOrder).compileSeek({ ordering: paginator.ordering, after: null, reverse: false, limit: 11 })
    const deepSql = source(sourceOrder).compileSeek({ ordering: paginator.ordering, after: key, reverse: false, limit: 11 })
    const lines: [string, () => Promise<unknown>][] = [
      ['paginate(), first page', () => paginator.paginate(source(sourceOrder), listRequest(''))],
      [`paginate(), page ${opts.depth}`, () => paginator.paginate(source(sourceOrder), listRequest(`cursor=${encodeURIComponent(cursor)}`))],
      ['seek SQL alone, first page', () => db.executeQuery(firstSql)],
      [`seek SQL alone, page ${opts.depth}`, () => db.executeQuery(deepSql)],
      ['compileSeek(), first page', async () => source(sourceOrder).compileSeek({ ordering: paginator.ordering, after: null, reverse: false, limit: 11 })],
      [`compileSeek(), page ${opts.depth}`, async () => source(sourceOrder).compileSeek({ ordering: paginator.ordering, after: key, reverse: false, limit: 11 })],
      ['cursor decode (HMAC check)', async () => paginator.decode(cursor)],
      ['cursor encode', async () => paginator.encode({ reverse: false, key })],
      ...alternatives(bench, order.join(','), key),
    ]
    const timings = await measureInterleaved(lines.map(([, f]) => f), { warmup: 20, runs: opts.runs })
    for (const [i, [label]] of lines.entries()) {
      rows.push([`[${paginator.ordering.map((f) => `${f.descending ? '-' : ''}${f.field}`).join(', ')}]`, label, formatMs(timings[i]?.median ?? NaN), formatMs(timings[i]?.p95 ?? NaN)])
    }
  }
  return `### ${bench.dialect}\n\n${markdownTable(['cursor ordering', 'what', 'median ms', 'p95 ms'], rows)}\n`
}

for (const which of ['sqlite', 'postgres'] as const) {
  if (opts.db !== 'both' && opts.db !== which) continue
  const bench = which === 'sqlite' ? await createSqliteBench(opts.rows) : await createPostgresBench(opts.rows)
  try {
    process.stdout.write(`${await run(bench)}\n`)
  } finally {
    await bench.drop()
  }
}
