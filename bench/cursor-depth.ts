/**
 * Turns `bench/pagination.ts --json` output into `bench/results/cursor-depth.json`, the data of
 * the "page time against depth" chart (`bench/charts.ts`): the median ms per page of a few
 * styles at each depth, on each database.
 *
 *   npx tsx bench/cursor-depth.ts [--in bench/results/pagination.json] [--out bench/results/cursor-depth.json]
 */
import { readFileSync, writeFileSync } from 'node:fs'

interface PaginationJson {
  readonly reports: readonly {
    readonly dialect: string
    readonly rows: number
    readonly cases: readonly { readonly style: string; readonly depth: number; readonly timing: { readonly median: number } }[]
  }[]
}

const STYLES = ['page-number, id', 'limit/offset, [-created, -id]', 'cursor, -created', 'cursor, id']

const arg = (flag: string, fallback: string): string => {
  const i = process.argv.indexOf(flag)
  return i === -1 ? fallback : (process.argv[i + 1] ?? fallback)
}
const input = JSON.parse(readFileSync(arg('--in', 'bench/results/pagination.json'), 'utf8')) as PaginationJson
const series = input.reports.flatMap((report) =>
  STYLES.map((style) => ({
    name: `${report.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${style}`,
    points: report.cases.filter((c) => c.style === style).map((c) => [c.depth, c.timing.median] as const),
  })).filter((s) => s.points.length > 0),
)
const out = arg('--out', 'bench/results/cursor-depth.json')
writeFileSync(out, `${JSON.stringify({ rows: input.reports[0]?.rows ?? 0, series }, null, 2)}\n`)
console.log(`wrote ${out}`)
