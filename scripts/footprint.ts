/**
 * Measures what each stack of the README's footprint table installs: the packed tarball and
 * the stack's peers installed with `npm install` into an empty app, then the packages npm
 * placed (package-lock.json) and the bytes of every file under node_modules.
 *
 * Install scripts are not run (`--ignore-scripts`): better-sqlite3's fetches a prebuilt addon
 * or compiles one, which depends on the machine and the network, not on gatehouse.
 *
 *   npx tsx scripts/footprint.ts                     # prints the table
 *   npx tsx scripts/footprint.ts --write             # rewrites it in README.md
 *   npx tsx scripts/footprint.ts --tarball x.tgz     # of that tarball (default: npm pack of this checkout)
 *
 * test/package/footprint.test.ts runs it in CI and compares its figures with the README's.
 */
import { spawn } from 'node:child_process'
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** One row of the table: a name and the peers the README's install line adds to gatehouse. */
export interface Stack {
  readonly name: string
  readonly peers: readonly string[]
}

/** What one stack installed. */
export interface Footprint {
  readonly stack: Stack
  /** Packages npm placed under node_modules, gatehouse included. */
  readonly packages: number
  /** Bytes of every file under node_modules (apparent sizes). */
  readonly bytes: number
}

/** The stacks of the README's table. */
export const STACKS: readonly Stack[] = [
  { name: 'gatehouse alone', peers: [] },
  { name: 'Fastify + PostgreSQL', peers: ['fastify', 'kysely', 'pg'] },
  { name: 'Express + SQLite', peers: ['express', 'kysely', 'better-sqlite3'] },
  { name: 'Hono + PostgreSQL + Redis', peers: ['hono', '@hono/node-server', 'kysely', 'pg', 'ioredis'] },
  // What a Worker's build installs (Wrangler itself, a dev tool, not counted).
  { name: 'Cloudflare Workers + D1', peers: ['hono', 'kysely', 'kysely-d1'] },
]

/** Where the README's table starts and ends. */
export const MARKERS = { start: '<!-- footprint:start -->', end: '<!-- footprint:end -->' } as const

/** The install line a user types for `stack`. */
export function installLine(stack: Stack): string {
  return ['npm install drf-gatehouse', ...stack.peers].join(' ')
}

/** Megabytes (10^6 bytes) as the table writes them: one decimal under 10, whole above. */
export function megabytes(bytes: number): string {
  const mb = bytes / 1e6
  return mb < 10 ? `${mb.toFixed(1)} MB` : `${Math.round(mb)} MB`
}

/** The Markdown table of `footprints`. */
export function renderTable(footprints: readonly Footprint[]): string {
  const rows = footprints.map((f) => `| ${f.stack.name} | \`${installLine(f.stack)}\` | ${f.packages} | ${megabytes(f.bytes)} |`)
  return ['| stack | install line | packages | node_modules |', '|---|---|---|---|', ...rows].join('\n')
}

/** The figures of the table between the markers of `readme`, by stack name. */
export function readTable(readme: string): Map<string, { packages: number; megabytes: number }> {
  const start = readme.indexOf(MARKERS.start)
  const end = readme.indexOf(MARKERS.end)
  if (start === -1 || end < start) throw new Error(`README.md has no ${MARKERS.start} … ${MARKERS.end} table`)
  const figures = new Map<string, { packages: number; megabytes: number }>()
  for (const line of readme.slice(start, end).split('\n')) {
    const match = /^\| ([^|]+) \| `[^`]+` \| (\d+) \| ([\d.]+) MB \|$/.exec(line)
    if (match !== null) figures.set((match[1] ?? '').trim(), { packages: Number(match[2]), megabytes: Number(match[3]) })
  }
  return figures
}

/** `readme` with the table between the markers replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(MARKERS.start)
  const end = readme.indexOf(MARKERS.end)
  if (start === -1 || end < start) throw new Error(`README.md has no ${MARKERS.start} … ${MARKERS.end} table`)
  return `${readme.slice(0, start + MARKERS.start.length)}\n${table}\n${readme.slice(end)}`
}

function sizeOf(path: string): number {
  const stat = lstatSync(path)
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0)
}

/** Runs npm without blocking the event loop (a test worker calling this keeps answering its runner). */
function npm(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`npm ${args.join(' ')} failed (${String(code)}): ${stderr}`))))
  })
}

/** Installs `tarball` with `stack`'s peers into an empty app and measures it. */
export async function measure(tarball: string, stack: Stack): Promise<Footprint> {
  const app = mkdtempSync(join(tmpdir(), 'gatehouse-footprint-'))
  try {
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'footprint', private: true, type: 'module' }))
    await npm(['install', '--ignore-scripts', '--prefer-offline', resolve(tarball), ...stack.peers], app)
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { link?: boolean }> }
    const packages = Object.entries(lock.packages).filter(([path, entry]) => path.startsWith('node_modules/') && entry.link !== true).length
    return { stack, packages, bytes: sizeOf(join(app, 'node_modules')) - sizeOf(join(app, 'node_modules', '.package-lock.json')) }
  } finally {
    rmSync(app, { recursive: true, force: true })
  }
}

/** `npm pack` of this checkout into a new temporary folder (prepack builds dist/). */
export async function packThisCheckout(): Promise<string> {
  const destination = mkdtempSync(join(tmpdir(), 'gatehouse-footprint-pack-'))
  const out = await npm(['pack', '--json', '--pack-destination', destination], ROOT)
  const info = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>
  return join(destination, info[0]?.filename ?? '')
}

async function main(argv: readonly string[]): Promise<void> {
  const at = argv.indexOf('--tarball')
  const tarball = at === -1 ? await packThisCheckout() : (argv[at + 1] ?? '')
  const footprints: Footprint[] = []
  // One at a time: npm's cache is shared, and the machine may be small.
  for (const stack of STACKS) footprints.push(await measure(tarball, stack))
  const table = renderTable(footprints)
  if (argv.includes('--write')) {
    const path = join(ROOT, 'README.md')
    writeFileSync(path, withTable(readFileSync(path, 'utf8'), table))
  }
  process.stdout.write(`${table}\n`)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))
