import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCommand } from './run-command.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** One lock per checkout: `npm pack` rebuilds dist/ (`rm -rf dist && tsc`), so two at once would mix. */
const LOCK = join(tmpdir(), `gatehouse-npm-pack-${ROOT.replace(/[^a-zA-Z0-9]+/g, '_')}.lock`)
/**
 * Tarballs already packed, by the content they were packed from (see `sourceKey`): the test files
 * that need the tarball (packed-tarball, peer-ranges, footprint) share one `npm pack` (a full tsc
 * build, ~13 s of CPU) instead of running one each.
 */
const CACHE = join(tmpdir(), 'gatehouse-npm-pack-cache')
/** Cached tarballs older than this are removed when a new one is written. */
const CACHE_MAX_AGE_MS = 86_400_000

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

/** What `npm pack` reads here: the build's sources and settings, the packlist's rules, the packed files. */
const PACK_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', '.gitignore', '.npmignore', 'src', 'bin', 'docs', 'README.md', 'LICENSE', 'CHANGELOG.md']

/**
 * A digest of everything `npm pack` reads here: the path and bytes of each file of `PACK_INPUTS`
 * (git's view of the work tree: tracked and untracked files, and the ignored ones too under the
 * packed folders bin/ and docs/), the installed dependencies (node_modules/.package-lock.json:
 * TypeScript and the types the build reads) and the versions of Node and npm. Null outside a git
 * checkout (then every call packs).
 */
function sourceKey(): string | null {
  // Synchronous: each takes milliseconds (a fast exit can fail runCommand's write to its stdin).
  const output = (command: string, args: readonly string[]): string | null => {
    const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    return result.status === 0 ? result.stdout : null
  }
  const listed = output('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...PACK_INPUTS])
  const packedFolders = output('git', ['ls-files', '-z', '--others', '--', 'bin', 'docs'])
  const npm = output('npm', ['--version'])
  if (listed === null || packedFolders === null || npm === null) return null
  const hash = createHash('sha256').update(`node ${process.version}\0npm ${npm.trim()}\0`)
  const installed = join(ROOT, 'node_modules', '.package-lock.json')
  hash.update(existsSync(installed) ? readFileSync(installed) : 'no node_modules/.package-lock.json').update('\0')
  const paths = [...new Set([...listed.split('\0'), ...packedFolders.split('\0')])].filter((path) => path !== '').sort()
  for (const path of paths) {
    const file = join(ROOT, path)
    // A tracked file deleted in the work tree: its absence is part of the key.
    hash.update(`${path}\0`).update(existsSync(file) && statSync(file).isFile() ? readFileSync(file) : '\0missing').update('\0')
  }
  return hash.digest('hex').slice(0, 32)
}

async function npmPack(destination: string): Promise<PackedTarball> {
  const pack = await runCommand('npm', ['pack', '--json', '--pack-destination', destination, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: ROOT,
    timeoutMs: 900_000,
  })
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`)
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>
  const first = info[0]
  if (first === undefined) throw new Error('npm pack printed no result')
  return { file: join(destination, first.filename), files: first.files.map((f) => f.path) }
}

function pruneCache(): void {
  for (const entry of readdirSync(CACHE)) {
    try {
      if (Date.now() - statSync(join(CACHE, entry)).mtimeMs > CACHE_MAX_AGE_MS) rmSync(join(CACHE, entry), { recursive: true, force: true })
    } catch {
      // Removed meanwhile.
    }
  }
}

/**
 * `npm pack` of this checkout into `destination` (building dist/ first, as `prepack` does), one
 * pack at a time across the test files that need the tarball. A checkout whose content was
 * packed before (same `sourceKey`) gets a copy of that tarball instead of a new build: `npm pack`
 * of the same files gives the same bytes (npm fixes the entries' times).
 */
export function packTarball(destination: string): Promise<PackedTarball> {
  return locked(async () => {
    const key = sourceKey()
    if (key === null) return npmPack(destination)
    const entry = join(CACHE, key)
    const infoFile = join(entry, 'pack.json')
    if (!existsSync(infoFile)) {
      mkdirSync(CACHE, { recursive: true })
      pruneCache()
      const staging = `${entry}.${process.pid}.tmp`
      rmSync(staging, { recursive: true, force: true })
      mkdirSync(staging)
      const packed = await npmPack(staging)
      const filename = packed.file.slice(staging.length + 1)
      writeFileSync(join(staging, 'pack.json'), JSON.stringify({ filename, files: packed.files }))
      rmSync(entry, { recursive: true, force: true })
      renameSync(staging, entry)
    }
    const { filename, files } = JSON.parse(readFileSync(infoFile, 'utf8')) as { filename: string; files: string[] }
    const file = join(destination, filename)
    copyFileSync(join(entry, filename), file)
    return { file, files }
  })
}
