import { sql } from 'kysely'
import type { CompiledQuery } from 'kysely'
import type { ApiRequest } from '../src/core/api-request.js'
import { createApiRequest } from '../src/core/request-factory.js'
import { LimitOffsetPagination } from '../src/pagination/limit-offset-pagination.js'
import { PageNumberPagination } from '../src/pagination/page-number-pagination.js'
import type { OrderingField, Page, SeekSource } from '../src/pagination/paginator.js'
import { CursorPagination, encodeCursor, kyselyPageSource } from './pagination-standin.js'
import type { BenchDatabase } from './pagination-data.js'
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
  readonly cursorFrom: 'first page' | 'walked next links' | 'built with encodeCursor' | null
  readonly timing: Timing
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
  /** Deepest cursor page median / first cursor page median, per cursor style. */
  readonly cursorRatios: readonly { readonly style: string; readonly depth: number; readonly ratio: number }[]
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

const CREATED_DESC: readonly OrderingField[] = [
  { field: 'created', descending: true },
  { field: 'id', descending: true },
]
const ID_ASC: readonly OrderingField[] = [{ field: 'id', descending: false }]

interface Style {
  readonly name: string
  /** The ordering the page follows; the independent check query sorts the same way. */
  readonly ordering: readonly OrderingField[]
  readonly kind: 'page-number' | 'limit-offset' | 'cursor'
}

const STYLES: readonly Style[] = [
  { name: 'page-number (-created)', ordering: CREATED_DESC, kind: 'page-number' },
  { name: 'limit/offset (-created)', ordering: CREATED_DESC, kind: 'limit-offset' },
  { name: 'cursor -created', ordering: CREATED_DESC, kind: 'cursor' },
  { name: 'cursor id', ordering: ID_ASC, kind: 'cursor' },
]

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

  // A list view builds its query per request; so do we (building it is part of the cost).
  const source = (ordering: readonly OrderingField[]): SeekSource<Row> =>
    kyselyPageSource<Row>(db.selectFrom('articles').selectAll(), ordering)

  const pageNumber = new PageNumberPagination({ pageSize: PAGE_SIZE })
  const limitOffset = new LimitOffsetPagination({ defaultLimit: PAGE_SIZE })

  // Independent expectation: plain Kysely, same ordering. Used only to check results, never timed.
  const expectedIds = async (ordering: readonly OrderingField[], offset: number): Promise<number[]> => {
    let q = db.selectFrom('articles').select('id')
    for (const o of ordering) q = q.orderBy(o.field as 'id', o.descending ? 'desc' : 'asc')
    return (await q.limit(PAGE_SIZE).offset(offset).execute()).map((r) => r.id)
  }

  for (const style of STYLES) {
    const cursor = style.kind === 'cursor' ? new CursorPagination({ pageSize: PAGE_SIZE, ordering: style.ordering }) : null
    const paginator = style.kind === 'page-number' ? pageNumber : style.kind === 'limit-offset' ? limitOffset : cursor
    const fetch = async (query: string): Promise<readonly Row[]> => {
      const page = await (paginator as PageNumberPagination).paginate(source(style.ordering), listRequest(query))
      if (page === null) throw new Error(`${style.name}: pagination is off`)
      return page.items
    }

    // Cursor: the query string for each depth.
    const cursorQueries = new Map<number, { query: string; from: CaseResult['cursorFrom'] }>()
    if (cursor !== null) {
      cursorQueries.set(1, { query: '', from: 'first page' })
      const maxWalk = options.maxWalkDepth ?? MAX_WALK_DEPTH
      const walkTo = Math.max(1, ...depths.filter((d) => d <= maxWalk))
      let query = ''
      for (let page = 1; page < walkTo; page++) {
        const result: Page<Row> | null = await cursor.paginate(source(style.ordering), listRequest(query))
        if (result?.next == null) throw new Error(`${style.name}: no next link on page ${page}`)
        query = new URL(result.next).search.slice(1)
        if (depths.includes(page + 1)) cursorQueries.set(page + 1, { query, from: 'walked next links' })
      }
      for (const depth of depths) {
        const built = await buildCursorQuery(source(style.ordering), style.ordering, (depth - 1) * PAGE_SIZE)
        const walked = cursorQueries.get(depth)
        if (walked === undefined) cursorQueries.set(depth, { query: built, from: 'built with encodeCursor' })
        else if (depth > 1 && new URLSearchParams(walked.query).get('cursor') !== new URLSearchParams(built).get('cursor')) {
          problems.push(`${bench.dialect} ${style.name} depth ${depth}: built cursor ${built} != walked ${walked.query}`)
        }
      }
    }

    const prepared: Omit<CaseResult, 'timing'>[] = []
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
      const expected = await expectedIds(style.ordering, offset)
      const correct = ids.length === expected.length && ids.every((id, i) => id === expected[i])
      if (!correct) problems.push(`${bench.dialect} ${style.name} depth ${depth}: got ids ${ids.join(',')} expected ${expected.join(',')}`)
      prepared.push({ style: style.name, depth, offset, query, cursorFrom, ids, correct, sql: captured.queries })
    }
    const timings = await measureInterleaved(prepared.map((c) => () => fetch(c.query)), options)
    for (const [i, c] of prepared.entries()) {
      const timing = timings[i] as Timing
      log(`${bench.dialect} ${style.name} depth ${c.depth}: median ${timing.median.toFixed(3)} ms p95 ${timing.p95.toFixed(3)} ms`)
      cases.push({ ...c, timing })
    }
  }

  const countSource = source(CREATED_DESC)
  const countCapture = await bench.capture(() => countSource.count())
  if (countCapture.result !== bench.rows) problems.push(`${bench.dialect} count() returned ${countCapture.result}, expected ${bench.rows}`)
  const count = await measure(() => source(CREATED_DESC).count(), options)
  log(`${bench.dialect} count(): median ${count.median.toFixed(3)} ms`)

  const cursorRatios = STYLES.filter((s) => s.kind === 'cursor').flatMap((s) => {
    const mine = cases.filter((c) => c.style === s.name)
    const first = mine.find((c) => c.depth === 1)
    const deepest = mine.reduce<CaseResult | undefined>((a, c) => (a === undefined || c.depth > a.depth ? c : a), undefined)
    if (first === undefined || deepest === undefined) return []
    return [{ style: s.name, depth: deepest.depth, ratio: deepest.timing.median / first.timing.median }]
  })

  return {
    dialect: bench.dialect,
    rows: bench.rows,
    sizeMb: bench.sizeMb,
    loadSeconds: bench.loadSeconds,
    cases,
    count,
    countSql: countCapture.queries,
    cursorRatios,
    problems,
  }
}

/**
 * The query string of the cursor that points at the page starting at row `offset`: the
 * next link of the page before it carries the key of that page's last row. The row comes
 * from the library's page source (`slice`), its key from the source's `keyOf`, and the
 * string from the library's cursor encoding.
 */
export async function buildCursorQuery(
  src: SeekSource<Row>,
  ordering: readonly OrderingField[],
  offset: number,
): Promise<string> {
  if (offset === 0) return ''
  const [row] = await src.slice(offset - 1, 1)
  if (row === undefined) throw new Error(`no row at offset ${offset - 1}`)
  return `cursor=${encodeURIComponent(encodeCursor({ reverse: false, key: src.keyOf(row, ordering) }))}`
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
