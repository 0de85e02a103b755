// Pagination benchmark: latency of one page at several depths, per style, on SQLite and PostgreSQL.
//   npx tsx bench/pagination.ts [--rows 1000000] [--db sqlite|postgres|both] [--runs 20] [--warmup 3]
//                               [--depths 1,10,1000,10000,90000] [--json out.json] [--no-explain]
// Prints a Markdown report on stdout, progress on stderr. See bench/README.md and BENCHMARKS.md.
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { Command, InvalidArgumentError } from 'commander'
import { sql } from 'kysely'
import { DEFAULT_DEPTHS, explain, runPaginationBench, type DatabaseReport } from './pagination-cases.js'
import { createPostgresBench, createSqliteBench, DEFAULT_POSTGRES_ADMIN_URL, ROW_SHAPE, type BenchDatabase } from './pagination-data.js'
import { formatMs, markdownTable } from './pagination-timing.js'

function positiveInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
  return n
}

function depthList(value: string): number[] {
  return value.split(',').map((v) => positiveInt(v.trim()))
}

const program = new Command('pagination-bench')
  .option('--rows <n>', 'rows in the articles table', positiveInt, 1_000_000)
  .option('--db <which>', 'sqlite, postgres or both', 'both')
  .option('--runs <n>', 'timed runs per case', positiveInt, 20)
  .option('--warmup <n>', 'untimed runs per case', positiveInt, 3)
  .option('--depths <list>', 'page depths, comma-separated', depthList, [...DEFAULT_DEPTHS])
  .option('--postgres-url <url>', 'server to create the throwaway database on', process.env['BENCH_POSTGRES_URL'] ?? DEFAULT_POSTGRES_ADMIN_URL)
  .option('--json <file>', 'also write the raw results as JSON')
  .option('--no-explain', 'skip the query plans of the deepest pages')
  .parse()

const opts = program.opts<{
  rows: number
  db: string
  runs: number
  warmup: number
  depths: number[]
  postgresUrl: string
  json?: string
  explain: boolean
}>()
if (!['sqlite', 'postgres', 'both'].includes(opts.db)) program.error('--db must be sqlite, postgres or both')

const log = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

/** The Markdown section for one database. */
async function renderReport(bench: BenchDatabase, report: DatabaseReport, withPlans: boolean): Promise<string> {
  const out: string[] = []
  const version = bench.dialect === 'sqlite'
    ? (await sql<{ v: string }>`select sqlite_version() as v`.execute(bench.db)).rows[0]?.v
    : (await sql<{ server_version: string }>`show server_version`.execute(bench.db)).rows[0]?.server_version
  out.push(`### ${report.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ${version ?? ''} (${report.rows.toLocaleString('en-US')} rows, ${report.sizeMb.toFixed(0)} MB, loaded in ${report.loadSeconds.toFixed(1)} s)`)
  out.push('')
  out.push(
    markdownTable(
      ['style', 'depth (page)', 'offset', 'median ms', 'p95 ms', 'in db ms', 'rows ok', 'cursor obtained by'],
      report.cases.map((c) => [
        c.style,
        c.depth.toLocaleString('en-US'),
        c.offset.toLocaleString('en-US'),
        formatMs(c.timing.median),
        formatMs(c.timing.p95),
        formatMs(c.dbMedian),
        c.correct ? 'yes' : 'NO',
        c.cursorFrom ?? '',
      ]),
    ),
  )
  out.push('')
  out.push(`COUNT(*) through the page source (\`source.count()\`, paid by page-number and limit/offset on every request): median ${formatMs(report.count.median)} ms, p95 ${formatMs(report.count.p95)} ms; with a filter (\`where author_id = 1\`, ${Math.ceil(report.rows / 2).toLocaleString('en-US')} rows): median ${formatMs(report.filteredCount.median)} ms, p95 ${formatMs(report.filteredCount.p95)} ms.`)
  out.push('')
  for (const r of report.cursorRatios) {
    const shallow = r.shallowDepth === null || r.ratioToShallow === null ? '' : `; page ${r.depth.toLocaleString('en-US')} / page ${r.shallowDepth.toLocaleString('en-US')} = ${r.ratioToShallow.toFixed(2)}x`
    out.push(`- Cursor ratio, ${r.style}: page ${r.depth.toLocaleString('en-US')} / page 1 = **${r.ratio.toFixed(2)}x** (${r.ratio <= 1.5 ? 'within' : 'OVER'} the 1.5x goal)${shallow}.`)
  }
  out.push('')
  if (report.problems.length > 0) {
    out.push('Problems:')
    for (const p of report.problems) out.push(`- ${p}`)
    out.push('')
  }
  if (withPlans) {
    const deepest = Math.max(...report.cases.map((c) => c.depth))
    for (const c of report.cases.filter((x) => x.depth === deepest)) {
      out.push(`<details><summary>${c.style}, page ${c.depth.toLocaleString('en-US')}: SQL and plan</summary>`)
      out.push('')
      out.push('```')
      for (const q of c.sql) {
        out.push(`${q.sql}  -- ${JSON.stringify(q.parameters)}`)
        out.push(await explain(bench, q))
        out.push('')
      }
      out.push('```')
      out.push('')
      out.push('</details>')
      out.push('')
    }
  }
  return out.join('\n')
}

const sections: string[] = []
const reports: DatabaseReport[] = []
const loadBefore = loadavg()
const started = new Date()
for (const which of ['sqlite', 'postgres'] as const) {
  if (opts.db !== 'both' && opts.db !== which) continue
  log(`${which}: loading ${opts.rows} rows…`)
  const bench = which === 'sqlite' ? await createSqliteBench(opts.rows) : await createPostgresBench(opts.rows, opts.postgresUrl)
  try {
    log(`${which}: loaded in ${bench.loadSeconds.toFixed(1)} s (${bench.location})`)
    const report = await runPaginationBench(bench, { runs: opts.runs, warmup: opts.warmup, depths: opts.depths, log })
    reports.push(report)
    sections.push(await renderReport(bench, report, opts.explain))
  } finally {
    await bench.drop()
  }
}
const loadAfter = loadavg()

const header = [
  `Run ${started.toISOString()}: ${opts.runs} timed runs after ${opts.warmup} warm-up runs per case, page size 10.`,
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}.`,
  `Load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}.`,
  `Rows: ${ROW_SHAPE}.`,
  '',
]
process.stdout.write(`${header.join('\n')}\n${sections.join('\n')}\n`)
if (opts.json !== undefined) {
  writeFileSync(opts.json, `${JSON.stringify({ started, loadBefore, loadAfter, options: opts, reports }, null, 2)}\n`)
}
const problems = reports.flatMap((r) => r.problems)
if (problems.length > 0) process.exitCode = 1
