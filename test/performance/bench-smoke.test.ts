import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STYLES, runPaginationBench, type DatabaseReport } from '../../bench/pagination-cases.js'
import { createPostgresBench, createSqliteBench, type BenchDatabase } from '../../bench/pagination-data.js'
import { quantile, summarize } from '../../bench/pagination-timing.js'
import { postgresAvailable } from '../helpers/databases.js'
import { unavailable } from '../helpers/requirements.js'

// The pagination benchmark's harness on a tiny table: every style × depth yields a row with
// the right page (checked against an independent query). No timing assertions.
describe('bench/pagination harness (SQLite, 2,000 rows)', () => {
  let bench: BenchDatabase
  let report: DatabaseReport
  const depths = [1, 10, 150, 200]

  beforeAll(async () => {
    bench = await createSqliteBench(2_000)
    report = await runPaginationBench(bench, { depths, runs: 2, warmup: 1, maxWalkDepth: 100 })
  })
  afterAll(async () => {
    await bench?.drop()
  })

  it('loads the requested number of rows', async () => {
    const row = await bench.db.selectFrom('articles').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(Number(row.n)).toBe(2_000)
  })

  it('produces one correct row per style and depth, and no problems', () => {
    const styles = [...new Set(report.cases.map((c) => c.style))]
    expect(styles).toEqual(STYLES.map((st) => st.name))
    expect(styles).toHaveLength(7)
    for (const style of styles) {
      expect(report.cases.filter((c) => c.style === style).map((c) => c.depth)).toEqual(depths)
    }
    expect(report.problems).toEqual([])
    for (const c of report.cases) {
      expect(c.correct).toBe(true)
      expect(c.ids).toHaveLength(10)
      expect(c.timing.runs).toBe(2)
      expect(c.sql.length).toBeGreaterThan(0)
    }
  })

  it('reaches shallow cursor pages by walking and the deepest by building the cursor', () => {
    const cursorCases = report.cases.filter((c) => c.style === 'cursor, id')
    expect(cursorCases.map((c) => c.cursorFrom)).toEqual(['first page', 'walked next links', 'built with paginator.encode', 'built with paginator.encode'])
    // Page 200 is the last page of 2,000 rows: ids 1991..2000 in `id` order.
    expect(cursorCases.at(-1)?.ids).toEqual(Array.from({ length: 10 }, (_, i) => 1991 + i))
    expect(report.cursorRatios.map((r) => r.style)).toEqual(['cursor, id', 'cursor, -created', 'cursor, [-created, -id]'])
  })

  it('counts through the page source', () => {
    expect(report.count.runs).toBe(2)
    expect(report.countSql.map((q) => q.sql.toLowerCase()).join(' ')).toContain('count(')
  })
})

describe.skipIf(unavailable('PostgreSQL (DATABASE_URL)', postgresAvailable()))('bench/pagination harness (PostgreSQL, 2,000 rows)', () => {
  it('loads a throwaway database, measures every style and depth correctly, and drops it', async () => {
    const bench = await createPostgresBench(2_000, process.env['DATABASE_URL'])
    let report: DatabaseReport
    try {
      report = await runPaginationBench(bench, { depths: [1, 10, 200], runs: 1, warmup: 0, maxWalkDepth: 100 })
    } finally {
      await bench.drop()
    }
    expect(report.problems).toEqual([])
    expect(report.cases).toHaveLength(STYLES.length * 3)
    expect(report.cases.every((c) => c.correct && c.ids.length === 10)).toBe(true)
    // PostgreSQL cursors carry a Date key; the built one still matched the walked one (no problem above).
    expect(report.cases.filter((c) => c.cursorFrom === 'built with paginator.encode')).toHaveLength(3)
  })
})

describe('bench/pagination timing helpers', () => {
  it('takes nearest-rank quantiles and the middle median', () => {
    const samples = Array.from({ length: 20 }, (_, i) => i + 1)
    expect(quantile(samples, 0.95)).toBe(19)
    expect(quantile(samples, 1)).toBe(20)
    const t = summarize([5, 1, 3, 2, 4, 6])
    expect(t.median).toBe(3.5)
    expect(t.min).toBe(1)
    expect(t.max).toBe(6)
  })
})
