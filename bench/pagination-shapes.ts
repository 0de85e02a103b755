import { TEST_SECRET } from '../test/helpers/secrets.js'
// Where the time of a cursor page goes, and what other keyset SQL shapes would cost.
//   npx tsx bench/pagination-shapes.ts [--db sqlite|postgres|both] [--rows 1000000] [--runs 400]
// For each cursor ordering: the whole `paginate()` call (first page / deep page), the library's
// own seek SQL executed alone (KyselyPageSource.compileSeek → db.executeQuery), the cursor codec,
// and, clearly marked "alt", hand-written alternative shapes for the same deep page (not library
// code: they show what a change to the page source would buy). Markdown on stdout.
import { Command, InvalidArgumentError } from 'commander'
import { sql, type CompiledQuery, type SqlBool } from 'kysely'
import { KyselyPageSource } from '../src/kysely/kysely-page-source.js'
import { CursorPagination } from '../src/pagination/cursor-pagination.js'
import type { KeyValue, SeekArgs, SeekSource } from '../src/pagination/paginator.js'
import { benchSource, COLUMNS, listRequest } from './pagination-cases.js'
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

/**
 * What-if page source (not library code): the library's `KyselyPageSource`, except that a keyset
 * seek runs its branches as separate plain queries, most specific first (`created = ? and id < ?`,
 * then `created < ?`), stopping once the page is full, instead of one `UNION ALL` with an outer
 * ORDER BY. Each branch is an index range read in index order; a single-field ordering is one
 * plain query with no sub-select.
 */
function sequentialSource(bench: BenchDatabase, orderBy: readonly string[]): SeekSource<Record<string, unknown>> {
  const base = (): ReturnType<typeof baseQuery> => baseQuery(bench)
  const inner = new KyselyPageSource({ db: bench.db, query: base(), dialect: bench.dialect, columns: COLUMNS, orderBy })
  const ref = (field: string): string => COLUMNS[field]?.ref ?? field
  return {
    count: () => inner.count(),
    slice: (offset, limit) => inner.slice(offset, limit),
    all: () => inner.all(),
    keyOf: (row, ordering) => inner.keyOf(row as never, ordering),
    acceptsKey: (key, ordering) => inner.acceptsKey(key, ordering),
    async seek(args: SeekArgs): Promise<readonly Record<string, unknown>[]> {
      const dirs = args.ordering.map((f) => ({ ...f, descending: f.descending !== args.reverse }))
      const ordered = (q: ReturnType<typeof base>): ReturnType<typeof base> =>
        dirs.reduce((acc, f) => acc.orderBy(sql.ref(ref(f.field)), f.descending ? 'desc' : 'asc'), q)
      if (args.after === null) return ordered(base()).limit(args.limit).execute()
      const after = args.after
      const out: Record<string, unknown>[] = []
      for (let i = dirs.length - 1; i >= 0 && out.length < args.limit; i--) {
        let q = base()
        for (let j = 0; j < i; j++) q = q.where(sql<SqlBool>`${sql.ref(ref(dirs[j]?.field ?? ''))} = ${after[j]}`)
        q = q.where(sql<SqlBool>`${sql.ref(ref(dirs[i]?.field ?? ''))} ${sql.raw(dirs[i]?.descending === true ? '<' : '>')} ${after[i]}`)
        out.push(...(await ordered(q).limit(args.limit - out.length).execute()))
      }
      return out
    },
  }
}

/** A source that answers every call with 11 copies of `row` at once: the paginator's own work, without SQL. */
function fakeSource<R extends object>(row: R): SeekSource<R> {
  const rows = Array.from({ length: 11 }, () => row)
  return {
    count: async () => rows.length,
    slice: async () => rows,
    all: async () => rows,
    seek: async () => rows,
    keyOf: (r, ordering) => ordering.map((f) => (r as Record<string, unknown>)[f.field] as KeyValue),
    acceptsKey: () => true,
  }
}

function baseQuery(bench: BenchDatabase) {
  return bench.db.selectFrom('articles').select(['id', 'title', 'author_id', 'score', 'created'])
}

async function run(bench: BenchDatabase): Promise<string> {
  const db = bench.db
  const source = (orderBy: readonly string[]): ReturnType<typeof benchSource> => benchSource(bench, orderBy)
  const rows: string[][] = []
  for (const order of [['id'], ['-created'], ['-created', '-id']]) {
    const paginator = new CursorPagination({ secret: TEST_SECRET, pageSize: 10, ordering: order })
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
      ['what-if: paginate() over sequential branch queries, first page', () => paginator.paginate(sequentialSource(bench, sourceOrder), listRequest(''))],
      [`what-if: paginate() over sequential branch queries, page ${opts.depth}`,
        () => paginator.paginate(sequentialSource(bench, sourceOrder), listRequest(`cursor=${encodeURIComponent(cursor)}`))],
      ['paginator alone (fake source, no SQL), first page', () => paginator.paginate(fakeSource(row), listRequest(''))],
      [`paginator alone (fake source, no SQL), page ${opts.depth}`, () => paginator.paginate(fakeSource(row), listRequest(`cursor=${encodeURIComponent(cursor)}`))],
      ['cursor decode (HMAC check)', async () => paginator.decode(cursor)],
      ['cursor encode', async () => paginator.encode({ reverse: false, key })],
      ...alternatives(bench, order.join(','), key),
    ]
    // The what-if source must return exactly the library's rows.
    const mine = await sequentialSource(bench, sourceOrder).seek({ ordering: paginator.ordering, after: key, reverse: false, limit: 11 })
    const theirs = await source(sourceOrder).seek({ ordering: paginator.ordering, after: key, reverse: false, limit: 11 })
    if (JSON.stringify(mine.map((r) => r['id'])) !== JSON.stringify(theirs.map((r) => r['id']))) {
      throw new Error(`what-if source disagrees with KyselyPageSource for ${order.join(',')}`)
    }
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
