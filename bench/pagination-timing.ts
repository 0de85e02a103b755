/** How many times to run a measured operation. */
export interface TimingOptions {
  /** Untimed runs first (plan cache, page cache, JIT). */
  readonly warmup: number
  /** Timed runs. */
  readonly runs: number
}

/** Latency statistics of one measured operation, in milliseconds. */
export interface Timing {
  readonly median: number
  readonly p95: number
  readonly min: number
  readonly max: number
  readonly runs: number
  /** Median of the numbers the operation returned in its timed runs (`NaN` when it returned none). */
  readonly valueMedian: number
}

/** The value at quantile `q` (nearest-rank) of ascending `sorted`. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil(q * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number
}

/** Runs `operation` `warmup` times untimed, then `runs` times timed one after the other. */
export async function measure(operation: () => Promise<unknown>, options: TimingOptions): Promise<Timing> {
  const [timing] = await measureInterleaved([operation], options)
  return timing as Timing
}

/**
 * Measures several operations round-robin: every run times each operation once, in turn.
 * Other processes on this 2-core machine come and go; interleaving spreads that noise over
 * all the operations alike, so ratios between them (deepest page / first page) stay fair.
 * Each timed sample is preceded by one untimed run of the same operation: otherwise a deep
 * OFFSET scan (which sweeps SQLite's small page cache) would make the *next* operation's
 * sample a cold-cache one, and the first page would look slower than it is.
 */
export async function measureInterleaved(operations: readonly (() => Promise<unknown>)[], options: TimingOptions): Promise<Timing[]> {
  for (const operation of operations) for (let i = 0; i < options.warmup; i++) await operation()
  const samples: number[][] = operations.map(() => [])
  const values: number[][] = operations.map(() => [])
  for (let i = 0; i < options.runs; i++) {
    for (const [k, operation] of operations.entries()) {
      if (operations.length > 1) await operation()
      const start = process.hrtime.bigint()
      const value = await operation()
      samples[k]?.push(Number(process.hrtime.bigint() - start) / 1e6)
      if (typeof value === 'number') values[k]?.push(value)
    }
  }
  return samples.map((s, k) => ({ ...summarize(s), valueMedian: summarize(values[k] ?? []).median }))
}

/** Median, p95, min and max of raw samples in ms. */
export function summarize(raw: readonly number[]): Omit<Timing, 'valueMedian'> {
  const samples = [...raw].sort((a, b) => a - b)
  if (samples.length === 0) return { median: Number.NaN, p95: Number.NaN, min: Number.NaN, max: Number.NaN, runs: 0 }
  // Median: the mean of the two middle samples for an even count.
  const mid = samples.length / 2
  const median = samples.length % 2 === 0
    ? ((samples[mid - 1] as number) + (samples[mid] as number)) / 2
    : (samples[Math.floor(mid)] as number)
  return {
    median,
    p95: quantile(samples, 0.95),
    min: samples[0] as number,
    max: samples[samples.length - 1] as number,
    runs: samples.length,
  }
}

/** Formats milliseconds for a table: three significant decimals below 10 ms, fewer above. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a'
  if (ms < 1) return ms.toFixed(3)
  if (ms < 10) return ms.toFixed(2)
  if (ms < 100) return ms.toFixed(1)
  return ms.toFixed(0)
}

/** A Markdown table from a header and rows (cells already formatted). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}
