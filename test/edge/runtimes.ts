/**
 * Runs a bundled script on Bun or Deno, the binaries their npm packages install
 * (devDependencies), so CI needs nothing else.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCommand } from '../helpers/run-command.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A JavaScript runtime other than the Node running the tests. */
export type ScriptRuntime = 'bun' | 'deno'

/** The runtime's binary, as its npm package installs it. */
export function runtimeBinary(runtime: ScriptRuntime): string {
  return join(ROOT, 'node_modules', '.bin', runtime)
}

/** The command line running `file` with no permission beyond what it needs (Deno asks none here). */
function commandLine(runtime: ScriptRuntime, file: string, args: readonly string[]): string[] {
  return runtime === 'bun' ? [file, ...args] : ['run', '--no-prompt', '--no-config', file, ...args]
}

/**
 * Runs `code` (one ES module) on `runtime` with `args`; resolves to what it printed on stdout.
 *
 * @throws Error with the runtime's stderr when it exits non-zero or its binary is missing
 */
export async function runScript(runtime: ScriptRuntime, code: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
  const binary = runtimeBinary(runtime)
  if (!existsSync(binary)) throw new Error(`${binary} is missing: npm ci installs ${runtime} (a devDependency)`)
  const dir = mkdtempSync(join(tmpdir(), `gatehouse-${runtime}-`))
  try {
    const file = join(dir, 'script.mjs')
    writeFileSync(file, code)
    // No update check, no colours: the output is parsed, and the machine has no outside network.
    const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', DENO_DIR: join(dir, 'deno-cache') }
    const result = await runCommand(binary, commandLine(runtime, file, args), { cwd: dir, env, timeoutMs })
    if (result.code !== 0) throw new Error(`${runtime} exited ${String(result.code)}:\n${result.stderr}`)
    return result.stdout
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
