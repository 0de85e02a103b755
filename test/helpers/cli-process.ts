import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { runCommand, type CommandResult, type RunCommandOptions } from './run-command.js'

/** The repository's root: the CLI runs there, and the bundle resolves its packages from its node_modules. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CACHE = join(ROOT, 'node_modules', '.cache', 'gatehouse-test-cli')

const bundles = new Map<string, Promise<string>>()

/**
 * A script (`src/cli/bin.ts`, the reference API's `main.ts`) bundled once per test process
 * (esbuild, packages left external, `drf-gatehouse` resolved to the sources through
 * tsconfig.json's paths), so a test spawns plain `node` on it: about 0.1 s a process, where
 * `tsx` compiled the script and its imports again for each one (about 1 s, several under
 * load). The file is named by its content, so concurrent test processes share it and a
 * source change makes a new one.
 */
function bundle(entry: string): Promise<string> {
  let bundled = bundles.get(entry)
  if (bundled !== undefined) return bundled
  bundled = (async () => {
    const result = await build({
      entryPoints: [join(ROOT, entry)],
      tsconfig: join(ROOT, 'tsconfig.json'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      logLevel: 'silent',
    })
    const code = result.outputFiles[0]?.contents
    if (code === undefined) throw new Error(`esbuild wrote no output for ${entry}`)
    const file = join(CACHE, `script-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`)
    if (!existsSync(file)) {
      mkdirSync(CACHE, { recursive: true })
      // Written aside and renamed: another test process may be writing the same file.
      const partial = `${file}.${process.pid}.tmp`
      writeFileSync(partial, code)
      renameSync(partial, file)
    }
    return file
  })()
  bundles.set(entry, bundled)
  return bundled
}

/** Runs the `drf-gatehouse` command line (the real process) with `args`, in the repository's root. */
export async function runCli(args: readonly string[], options: Omit<RunCommandOptions, 'cwd'> = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [await bundle('src/cli/bin.ts'), ...args], { cwd: ROOT, ...options })
}

/** Runs the reference API's `main.ts` (its command line: `create-token`, `migrate`, …) with `args`, in the repository's root. */
export async function runReferenceMain(args: readonly string[], options: Omit<RunCommandOptions, 'cwd'> = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [await bundle('examples/reference-api/main.ts'), ...args], { cwd: ROOT, ...options })
}

/** The `drf-gatehouse` command line started with `args` and left running (a server command): the caller kills it. */
export async function spawnCli(args: readonly string[]): Promise<ChildProcessWithoutNullStreams> {
  return spawn(process.execPath, [await bundle('src/cli/bin.ts'), ...args], { cwd: ROOT })
}
