/**
 * Instructions a server process executes over a window, counted by callgrind: the figure the
 * machine's load does not move (the project's VM has no hardware counter for `perf stat`).
 * A server is started under `callgrindCommand()` with instrumentation off (start-up and warm-up
 * run at valgrind's plain speed); `instructionsOver` switches it on around one window
 * (`callgrind_control -z`, `-i on`, the work, `-d`, `-i off`) and returns the dump's `Ir` total.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where a server's dumps go: `<prefix>.<pid>.<n>`. */
function dumpPrefix(tag: string): string {
  return join(tmpdir(), `gatehouse-cg-${tag}`)
}

/** The command that runs `node …` under callgrind, uninstrumented until `instructionsOver` asks. */
export function callgrindCommand(tag: string): string[] {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dumpPrefix(tag)}.%p`]
}

function control(pid: number, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn('callgrind_control', [...args, String(pid)], { stdio: ['ignore', 'ignore', 'ignore'] })
    proc.once('error', reject)
    proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`callgrind_control ${args.join(' ')} ${pid}: exit ${code}`))))
  })
}

/** The `Ir` total of the newest dump of `pid` (every dump of it then removed). */
function lastDumpTotal(tag: string, pid: number): number {
  const base = `${dumpPrefix(tag)}.${pid}`
  const dumps = readdirSync(tmpdir())
    .map((name) => join(tmpdir(), name))
    .filter((path) => path.startsWith(`${base}.`))
  const newest = dumps.sort((a, b) => Number(b.slice(base.length + 1)) - Number(a.slice(base.length + 1)))[0]
  if (newest === undefined) throw new Error(`no callgrind dump for ${base}`)
  const text = readFileSync(newest, 'utf8')
  for (const file of dumps) rmSync(file, { force: true })
  const match = /^(?:totals|summary):\s*(\d+)/m.exec(text)
  if (match === null) throw new Error(`no instruction total in ${newest}`)
  return Number(match[1])
}

/** Instructions `pid` (started under `callgrindCommand(tag)`) executed while `work` ran. */
export async function instructionsOver(tag: string, pid: number, work: () => Promise<void>): Promise<number> {
  await control(pid, ['-z'])
  await control(pid, ['-i', 'on'])
  try {
    await work()
  } finally {
    // A dump writes the window's counts to `<out>.<n>` and zeroes them.
    await control(pid, ['-d'])
    await control(pid, ['-i', 'off'])
  }
  return lastDumpTotal(tag, pid)
}

/**
 * `entry` bundled by esbuild into `bench/.callgrind/<name>-<pid>.mjs` (packages left external, the
 * repository's `drf-gatehouse` paths bundled from source): a server under valgrind then starts
 * without compiling TypeScript, in minutes less on a busy machine. Returns the bundle's path.
 */
export async function bundleForCallgrind(entry: string, name: string): Promise<string> {
  const { build } = await import('esbuild')
  // One file per benchmark process: two runs at once (before and after a change) keep their own code.
  const outfile = join(import.meta.dirname, '.callgrind', `${name}-${process.pid}.mjs`)
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile, logLevel: 'warning' })
  return outfile
}
