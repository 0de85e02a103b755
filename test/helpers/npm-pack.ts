import { mkdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCommand } from './run-command.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** One lock per checkout: `npm pack` rebuilds dist/ (`rm -rf dist && tsc`), so two at once would mix. */
const LOCK = join(tmpdir(), `gatehouse-npm-pack-${ROOT.replace(/[^a-zA-Z0-9]+/g, '_')}.lock`)

/** What `npm pack --json` said of the tarball. */
export interface PackedTarball {
  /** Absolute path of the .tgz. */
  readonly file: string
  /** Paths inside the package. */
  readonly files: readonly string[]
}

async function locked<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK)
      break
    } catch {
      // A lock left by a killed run is stale after 15 minutes.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 900_000) rmSync(LOCK, { recursive: true, force: true })
      } catch {
        // Released meanwhile.
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

/**
 * `npm pack` of this checkout into `destination` (building dist/ first, as `prepack` does), one
 * pack at a time across the test files that need the tarball.
 */
export function packTarball(destination: string): Promise<PackedTarball> {
  return locked(async () => {
    const pack = await runCommand('npm', ['pack', '--json', '--pack-destination', destination, '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: ROOT,
      timeoutMs: 900_000,
    })
    if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`)
    const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>
    const first = info[0]
    if (first === undefined) throw new Error('npm pack printed no result')
    return { file: join(destination, first.filename), files: first.files.map((f) => f.path) }
  })
}
