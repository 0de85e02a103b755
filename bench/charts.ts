/**
 * Draws the scale curves of BENCHMARKS.md as PNG files in docs/, from the JSON the benchmarks
 * wrote: an SVG line chart per figure, rendered to PNG by Debian's Chromium (playwright-core,
 * never a downloaded browser).
 *
 *   npx tsx bench/charts.ts [--in bench/results] [--out docs]
 *
 * Reads `scale.json` (bench/scale.ts) and `cursor-depth.json` (bench/pagination.ts --json),
 * each when present, and writes `docs/bench-connections.png`, `docs/bench-instances.png` and
 * `docs/bench-cursor-depth.png`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

/** One line of a chart. */
export interface Series {
  readonly name: string
  readonly points: readonly (readonly [number, number])[]
}

/** One chart: axes, series, and whether x is logarithmic (connections, depths). */
export interface Chart {
  readonly file: string
  readonly title: string
  readonly xLabel: string
  readonly yLabel: string
  readonly logX: boolean
  /** A logarithmic y axis (values spanning decades, such as OFFSET against cursor pages). */
  readonly logY?: boolean
  readonly series: readonly Series[]
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#e377c2', '#7f7f7f', '#bcbd22']
const WIDTH = 920
const HEIGHT = 440
const MARGIN = { left: 70, right: 300, top: 44, bottom: 56 }

const escape = (text: string): string => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)

/** Round tick values for [0, max]. */
function ticks(max: number): number[] {
  const rough = max / 5
  const magnitude = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough
  const out: number[] = []
  for (let v = 0; v <= max * 1.0001; v += step) out.push(Number(v.toPrecision(12)))
  return out
}

/** The chart as a standalone SVG document. */
export function renderSvg(chart: Chart): string {
  const xs = chart.series.flatMap((s) => s.points.map((p) => p[0]))
  const ys = chart.series.flatMap((s) => s.points.map((p) => p[1]))
  const logY = chart.logY === true
  const yTicks = logY
    ? Array.from({ length: Math.ceil(Math.log10(Math.max(...ys))) - Math.floor(Math.log10(Math.min(...ys))) + 1 }, (_, i) => 10 ** (Math.floor(Math.log10(Math.min(...ys))) + i))
    : ticks(Math.max(...ys, 1) * 1.08)
  const yMax = yTicks[yTicks.length - 1] ?? 1
  const yMin = logY ? (yTicks[0] ?? 1) : 0
  const xMin = Math.min(...xs)
  const xMax = Math.max(...xs)
  const fx = (x: number): number => (chart.logX ? Math.log(x) : x)
  const plotW = WIDTH - MARGIN.left - MARGIN.right
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom
  const px = (x: number): number => MARGIN.left + (xMax === xMin ? plotW / 2 : ((fx(x) - fx(xMin)) / (fx(xMax) - fx(xMin))) * plotW)
  const py = (y: number): number =>
    MARGIN.top + plotH - (logY ? (Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin)) : y / yMax) * plotH
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${WIDTH / 2 - MARGIN.right / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ]
  for (const t of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${py(t)}" y2="${py(t)}" stroke="#e5e5e5"/>`)
    parts.push(`<text x="${MARGIN.left - 8}" y="${py(t) + 4}" text-anchor="end">${t}</text>`)
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    parts.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 5}" stroke="#333"/>`)
    parts.push(`<text x="${px(x)}" y="${MARGIN.top + plotH + 19}" text-anchor="middle">${x.toLocaleString('en-US')}</text>`)
  }
  parts.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`)
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">${escape(chart.xLabel)}</text>`)
  parts.push(`<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`)
  chart.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length] ?? '#000'
    const path = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ')
    parts.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2.2"/>`)
    for (const p of s.points) parts.push(`<circle cx="${px(p[0])}" cy="${py(p[1])}" r="3.2" fill="${color}"/>`)
    const ly = MARGIN.top + 14 + i * 20
    parts.push(`<line x1="${WIDTH - MARGIN.right + 14}" x2="${WIDTH - MARGIN.right + 36}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2.2"/>`)
    parts.push(`<text x="${WIDTH - MARGIN.right + 42}" y="${ly}">${escape(s.name)}</text>`)
  })
  parts.push('</svg>')
  return parts.join('\n')
}

interface ScaleJson {
  readonly connections: readonly { server: string; db: string; connections: number; rps: number; p99ms: number }[]
  readonly instances: readonly { instances: number; rps: number; p99ms: number }[]
}

interface CursorDepthJson {
  readonly rows: number
  readonly series: readonly { name: string; points: readonly [number, number][] }[]
}

function group<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item])
  return out
}

/** The charts the JSON files in `dir` allow. */
export function chartsFrom(dir: string): Chart[] {
  const charts: Chart[] = []
  const scalePath = join(dir, 'scale.json')
  if (existsSync(scalePath)) {
    const scale = JSON.parse(readFileSync(scalePath, 'utf8')) as ScaleJson
    const byServer = [...group(scale.connections, (r) => `${r.server} (${r.db})`)]
    charts.push({
      file: 'bench-connections.png',
      title: 'Requests per second against connections',
      xLabel: 'concurrent connections (wrk)',
      yLabel: 'requests per second',
      logX: true,
      series: byServer.map(([name, rows]) => ({ name, points: rows.map((r) => [r.connections, r.rps] as const) })),
    })
    charts.push({
      file: 'bench-connections-p99.png',
      title: 'p99 latency against connections',
      xLabel: 'concurrent connections (wrk)',
      yLabel: 'p99 latency (ms)',
      logX: true,
      series: byServer.map(([name, rows]) => ({ name, points: rows.map((r) => [r.connections, r.p99ms] as const) })),
    })
    if (scale.instances.length > 0) {
      charts.push({
        file: 'bench-instances.png',
        title: 'Requests per second against instances (nginx, PostgreSQL, Redis)',
        xLabel: 'gatehouse instances behind nginx',
        yLabel: 'requests per second',
        logX: false,
        series: [{ name: 'gatehouse (fastify)', points: scale.instances.map((r) => [r.instances, r.rps] as const) }],
      })
    }
  }
  const depthPath = join(dir, 'cursor-depth.json')
  if (existsSync(depthPath)) {
    const depth = JSON.parse(readFileSync(depthPath, 'utf8')) as CursorDepthJson
    charts.push({
      file: 'bench-cursor-depth.png',
      title: `Page time against depth, ${depth.rows.toLocaleString('en-US')} rows`,
      xLabel: 'page depth (pages of 10)',
      yLabel: 'median ms per page (log scale)',
      logX: true,
      logY: true,
      series: depth.series,
    })
  }
  return charts
}

async function main(): Promise<void> {
  const arg = (flag: string, fallback: string): string => {
    const i = process.argv.indexOf(flag)
    return i === -1 ? fallback : (process.argv[i + 1] ?? fallback)
  }
  const input = arg('--in', 'bench/results')
  const output = arg('--out', 'docs')
  const charts = chartsFrom(input)
  if (charts.length === 0) throw new Error(`no scale.json or cursor-depth.json in ${input}`)
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } })
    for (const chart of charts) {
      await page.setContent(`<!DOCTYPE html><html><body style="margin:0">${renderSvg(chart)}</body></html>`)
      await page.screenshot({ path: join(output, chart.file), clip: { x: 0, y: 0, width: WIDTH, height: HEIGHT } })
      console.log(`wrote ${join(output, chart.file)}`)
    }
  } finally {
    await browser.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
