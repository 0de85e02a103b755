import { TEST_SECRET } from '../test/helpers/secrets.js'
import { sql } from 'kysely'
import type { CompiledQuery } from 'kysely'
import type { ApiRequest } from '../src/core/api-request.js'
import { createApiRequest } from '../src/core/request/request-factory.js'
import { KyselyPageSource, type ColumnSpec } from '../src/kysely/kysely-page-source.js'
import { CursorPagination } from '../src/pagination/cursor-pagination.js'
import { LimitOffsetPagination } from '../src/pagination/limit-offset-pagination.js'
import { PageNumberPagination } from '../src/pagination/page-number-pagination.js'
import type { OrderingField, Paginator, SeekSource } from '../src/pagination/paginator.js'
import type { BenchDatabase, BenchDatabaseSchema } from './pagination-data.js'
import { measure, measureInterleaved, type Timing, type TimingOptions } from './pagination-timing.js'

/** Rows per page in every case (the reference API's page size). */
export const PAGE_SIZE = 10

/** Page depths measured by default: 1 is the baseline the deeper pages are compared with. */
export const DEFAULT_DEPTHS: readonly number[] = [1, 10, 1_000, 10_000, 90_000]

/** Cursor depths reached by following `next` links from the first page; deeper ones are built (see below). */
export const MAX_WALK_DEPTH = 1_000

interface Row {
  readonly id: number
  readonly created: unknown
}

/** One measured request: a style at a page depth. */
export interface CaseResult {
  readonly style: string
  readonly depth: number
  /** Offset of the page's first row. */
  readonly offset: number
  /** The query string sent to the paginator. */
  readonly query: string
  /** How the cursor for this depth was obtained (cursor styles only). */
  readonly cursorFrom: 'first page' | 'walked next links' | 'built with paginator.encode' | null
  readonly timing: Timing
  /**
   * Median time inside Kysely's query execution per request (driver round trip + database);
   * the rest of `timing` is the library's own work (parsing, cursor HMAC, building SQL, links).
   */
  readonly dbMedian: number
  /** Ids of the page, checked against an independent query. */
  readonly ids: readonly number[]
  readonly correct: boolean
  /** The SQL the library sent for this request (captured once, outside the timed runs). */
  readonly sql: readonly CompiledQuery[]
}

/** Everything measured on one database. */
export interface DatabaseReport {
  readonly dialect: string
  readonly rows: number
  readonly sizeMb: number
  readonly loadSeconds: number
  readonly cases: readonly CaseResult[]
  /** `source.count()` through the library's Kysely page source: what page-number and limit/offset pay per request. */
  readonly count: Timing
  readonly countSql: readonly CompiledQuery[]
  /** The same for a filtered list (`where author_id = 1`, half the rows: the reference API's `?author=`). */
  readonly filteredCount: Timing
  /**
   * Per cursor style: deepest page median / first page median (the goal: <= 1.5), and deepest /
   * second-shallowest measured depth (both pages seek with a cursor: growth with depth alone).
   */
  readonly cursorRatios: readonly {
    readonly style: string
    readonly depth: number
    readonly ratio: number
    readonly shallowDepth: number | null
    readonly ratioToShallow: number | null
  }[]
  /** Sanity checks that failed (wrong rows, cursor construction disagreeing with a walk). Empty when all is well. */
  readonly problems: readonly string[]
}

/** Options for `runPaginationBench`. */
export interface BenchOptions extends TimingOptions {
  readonly depths: readonly number[]
  /** Cursor pages up to this depth are reached by following next links. @default MAX_WALK_DEPTH */
  readonly maxWalkDepth?: number
  /** Progress lines (to stderr in the CLI). */
  readonly log?: (line: string) => void
}

/** A GET request for the list URL, as an adapter would build it for a list view. */
export function listRequest(query: string): ApiRequest {
  return createApiRequest({
    method: 'GET',
    url: new URL(`http://bench.local/api/articles/${query === '' ? '' : `?${query}`}`),
    headers: new Headers({ accept: 'application/json', host: 'bench.local' }),
    remoteAddress: '127.0.0.1',
    readBody: async () => null,
  })
}

/** The columns the benchmark's page sources may order and seek by (as the reference API declares them). */
export const COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  id: { ref: 'articles.id', kind: 'integer' },
  score: { ref: 'articles.score', kind: 'integer' },
  created: { ref: 'articles.created', kind: 'timestamp', nearlyUnique: true },
}

/**
 * The articles list as a page source, built per request as a list view builds it
 * (reference-api/routes/articles.ts), so building it is part of the measured cost.
 * `authorId` filters like `?author=`.
 */
export function benchSource(
  bench: BenchDatabase,
  orderBy: readonly string[],
  authorId?: number,
): KyselyPageSource<BenchDatabaseSchema, 'articles', Row> {
  const query = bench.db.selectFrom('articles').select(['id', 'title', 'author_id', 'score', 'created'])
  return new KyselyPageSource({
    db: bench.db,
    query: authorId === undefined ? query : query.where('author_id', '=', authorId),
    dialect: bench.dialect,
    columns: COLUMNS,
    orderBy,
  })
}

interface Style {
  readonly name: string
  readonly kind: 'page-number' | 'limit-offset' | 'cursor'
  /** Page-number / limit-offset: the source's `orderBy`. Cursor: the paginator's `ordering` (it appends `id`). */
  readonly order: readonly string[]
}

/**
 * The styles measured. The reference API orders its numbered routes by `id` (a primary-key /
 * rowid walk); `-created, -id` is served by the `(created, id)` index scanned backwards, with a
 * table lookup per skipped row. (Not `-created, id`: mixed directions cannot use that index for
 * the order, so every deep OFFSET page would also pay a sort; see BENCHMARKS.md.)
 */
export const STYLES: readonly Style[] = [
  { name: 'page-number, id', kind: 'page-number', order: ['id'] },
  { name: 'page-number, [-created, -id]', kind: 'page-number', order: ['-created', '-id'] },
  { name: 'limit/offset, id', kind: 'limit-offset', order: ['id'] },
  { name: 'limit/offset, [-created, -id]', kind: 'limit-offset', order: ['-created', '-id'] },
  { name: 'cursor, id', kind: 'cursor', order: ['id'] },
  { name: 'cursor, -created', kind: 'cursor', order: ['-created'] },
  // Not a default: the same ordering with the tiebreaker in the same direction, passed explicitly.
  // It shows what appending `-id` (instead of `id`) to `-created` would cost; see BENCHMARKS.md.
  { name: 'cursor, [-created, -id]', kind: 'cursor', order: ['-created', '-id'] },
]

function parseOrder(items: readonly string[]): OrderingField[] {
  return items.map((item) => (item.startsWith('-') ? { field: item.slice(1), descending: true } : { field: item, descending: false }))
}

/**
 * Measures every style at every depth on one loaded database, through the library's
 * paginators and Kysely page source, called the way a list view calls them.
 */
export async function runPaginationBench(bench: BenchDatabase, options: BenchOptions): Promise<DatabaseReport> {
  const log = options.log ?? ((): void => undefined)
  const db = bench.db
  const totalPages = Math.ceil(bench.rows / PAGE_SIZE)
  const depths = options.depths.filter((d) => d >= 1 && d <= totalPages)
  const problems: string[] = []
  const cases: CaseResult[] = []

  const source = (orderBy: readonly string[]): SeekSource<Row> => benchSource(bench, orderBy)

  // Independent expectation: plain Kysely, same ordering. Used only to check results, never timed.
  const expectedIds = async (ordering: readonly OrderingField[], offset: number): Promise<number[]> => {
    let q = db.selectFrom('articles').select('id')
    for (const o of ordering) q = q.orderBy(o.field as 'id', o.descending ? 'desc' : 'asc')
    return (await q.limit(PAGE_SIZE).offset(offset).execute()).map((r) => r.id)
  }

  for (const style of STYLES) {
    const cursor = style.kind === 'cursor' ? new CursorPagination({ secret: TEST_SECRET, pageSize: PAGE_SIZE, ordering: style.order }) : null
    const paginator: Paginator =
      cursor ?? (style.kind === 'page-number' ? new PageNumberPagination({ pageSize: PAGE_SIZE }) : new LimitOffsetPagination({ defaultLimit: PAGE_SIZE }))
    // The effective order: the cursor's own (with its tiebreaker), else the source's.
    const ordering: readonly OrderingField[] = cursor !== null ? cursor.ordering : parseOrder(style.order)
    const sourceOrder = ordering.map((f) => `${f.descending ? '-' : ''}${f.field}`)
    const fetch = async (query: string): Promise<readonly Row[]> => {
      const page = await paginator.paginate(source(sourceOrder), listRequest(query))
      if (page === null) throw new Error(`${style.name}: pagination is off`)
      return page.items as readonly Row[]
    }

    // Cursor: the query string for each depth.
    const cursorQueries = new Map<number, { query: string; from: CaseResult['cursorFrom'] }>()
    if (cursor !== null) {
      cursorQueries.set(1, { query: '', from: 'first page' })
      const maxWalk = options.maxWalkDepth ?? MAX_WALK_DEPTH
      const walkTo = Math.max(1, ...depths.filter((d) => d <= maxWalk))
      let query = ''
      for (let page = 1; page < walkTo; page++) {
        const result = await cursor.paginate(source(sourceOrder), listRequest(query))
        if (result?.next == null) throw new Error(`${style.name}: no next link on page ${page}`)
        query = new URL(result.next).search.slice(1)
        if (depths.includes(page + 1)) cursorQueries.set(page + 1, { query, from: 'walked next links' })
      }
      for (const depth of depths) {
        const built = await buildCursorQuery(cursor, source(sourceOrder), (depth - 1) * PAGE_SIZE)
        const walked = cursorQueries.get(depth)
        if (walked === undefined) cursorQueries.set(depth, { query: built, from: 'built with paginator.encode' })
        else if (depth > 1 && new URLSearchParams(walked.query).get('cursor') !== new URLSearchParams(built).get('cursor')) {
          problems.push(`${bench.dialect} ${style.name} depth ${depth}: built cursor ${built} != walked ${walked.query}`)
        }
      }
    }

    const prepared: Omit<CaseResult, 'timing' | 'dbMedian'>[] = []
    for (const depth of depths) {
      const offset = (depth - 1) * PAGE_SIZE
      let query: string
      let cursorFrom: CaseResult['cursorFrom'] = null
      if (style.kind === 'page-number') query = depth === 1 ? '' : `page=${depth}`
      else if (style.kind === 'limit-offset') query = `limit=${PAGE_SIZE}&offset=${offset}`
      else {
        const c = cursorQueries.get(depth) as { query: string; from: CaseResult['cursorFrom'] }
        query = c.query
        cursorFrom = c.from
      }
      const captured = await bench.capture(() => fetch(query))
      const ids = captured.result.map((r) => r.id)
      const expected = await expectedIds(ordering, offset)
      const correct = ids.length === expected.length && ids.every((id, i) => id === expected[i])
      if (!correct) problems.push(`${bench.dialect} ${style.name} depth ${depth}: got ids ${ids.join(',')} expected ${expected.join(',')}`)
      prepared.push({ style: style.name, depth, offset, query, cursorFrom, ids, correct, sql: captured.queries })
    }
    // Each operation returns its time inside Kysely's execution; the timing loop keeps the timed runs' values.
    const operations = prepared.map((c) => async (): Promise<number> => {
      const before = bench.queryMs()
      await fetch(c.query)
      return bench.queryMs() - before
    })
    const timings = await measureInterleaved(operations, options)
    for (const [i, c] of prepared.entries()) {
      const timing = timings[i] as Timing
      const dbMedian = timing.valueMedian
      log(`${bench.dialect} ${style.name} depth ${c.depth}: median ${timing.median.toFixed(3)} ms p95 ${timing.p95.toFixed(3)} ms (db ${dbMedian.toFixed(3)} ms)`)
      cases.push({ ...c, timing, dbMedian })
    }
  }

  const countCapture = await bench.capture(async () => source(['id']).count())
  if (countCapture.result !== bench.rows) problems.push(`${bench.dialect} count() returned ${countCapture.result}, expected ${bench.rows}`)
  const count = await measure(async () => source(['id']).count(), options)
  log(`${bench.dialect} count(): median ${count.median.toFixed(3)} ms`)
  const filtered = (): SeekSource<Row> => benchSource(bench, ['id'], 1)
  const filteredRows = await filtered().count()
  if (filteredRows !== Math.ceil(bench.rows / 2)) problems.push(`${bench.dialect} filtered count() returned ${filteredRows}`)
  const filteredCount = await measure(async () => filtered().count(), options)
  log(`${bench.dialect} filtered count(): median ${filteredCount.median.toFixed(3)} ms`)

  const cursorRatios = STYLES.filter((s) => s.kind === 'cursor').flatMap((s) => {
    const mine = cases.filter((c) => c.style === s.name)
    const first = mine.find((c) => c.depth === 1)
    const deepest = mine.reduce<CaseResult | undefined>((a, c) => (a === undefined || c.depth > a.depth ? c : a), undefined)
    if (first === undefined || deepest === undefined) return []
    const shallow = mine.filter((c) => c.depth > 1).sort((a, b) => a.depth - b.depth)[0]
    return [
      {
        style: s.name,
        depth: deepest.depth,
        ratio: deepest.timing.median / first.timing.median,
        shallowDepth: shallow?.depth ?? null,
        ratioToShallow: shallow === undefined ? null : deepest.timing.median / shallow.timing.median,
      },
    ]
  })

  return {
    dialect: bench.dialect,
    rows: bench.rows,
    sizeMb: bench.sizeMb,
    loadSeconds: bench.loadSeconds,
    cases,
    count,
    countSql: countCapture.queries,
    filteredCount,
    cursorRatios,
    problems,
  }
}

/**
 * The query string of the cursor that points at the page starting at row `offset`, made the
 * way the paginator makes the next link of the page before it: a forward cursor carrying the
 * key of that page's last row. The row is read with the page source's `slice` (ordered like
 * the cursor), its key taken with the source's `keyOf`, and the text made by the paginator's
 * public `encode` (same scope and HMAC as its own links).
 */
export async function buildCursorQuery(paginator: CursorPagination, src: SeekSource<Row>, offset: number): Promise<string> {
  if (offset === 0) return ''
  const [row] = await src.slice(offset - 1, 1)
  if (row === undefined) throw new Error(`no row at offset ${offset - 1}`)
  const cursor = paginator.encode({ reverse: false, key: src.keyOf(row, paginator.ordering) })
  return `${paginator.cursorQueryParam}=${encodeURIComponent(cursor)}`
}

/** The server-side plan of a captured query (EXPLAIN ANALYZE on PostgreSQL, EXPLAIN QUERY PLAN on SQLite). */
export async function explain(bench: BenchDatabase, query: CompiledQuery): Promise<string> {
  const raw = sql.raw(query.sql)
  // Substitute the parameters the library bound; `sql.join` keeps them as bound values, not text.
  const parts = query.sql.split(bench.dialect === 'postgres' ? /\$\d+/ : /\?/)
  const bound = parts.length > 1
    ? sql.join(parts.map((p, i) => (i < query.parameters.length ? sql`${sql.raw(p)}${query.parameters[i]}` : sql.raw(p))), sql``)
    : raw
  const prefix = bench.dialect === 'postgres' ? sql.raw('EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ') : sql.raw('EXPLAIN QUERY PLAN ')
  const result = await sql<Record<string, unknown>>`${prefix}${bound}`.execute(bench.db)
  if (bench.dialect === 'postgres') return result.rows.map((r) => String(r['QUERY PLAN'])).join('\n')
  return result.rows.map((r) => String(r['detail'])).join('\n')
}
