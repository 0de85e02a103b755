/**
 * better-sqlite3 binaries compiled here, kept in prebuild-install's cache so that a later install
 * of the same version (the other end of test/package/peer-ranges.test.ts, the next run, CI's
 * early warm-up in test/package/warm-caches.ts) finds it instead of compiling it again.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { prebuildUrl } from './peer-ends.js'

const NPM_CACHE = process.env['npm_config_cache'] ?? join(homedir(), '.npm')
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The repository's better-sqlite3 addon that loads on this Node: the one `npm ci` compiled, or,
 * under .ci/with-node (Node 22, 24), the copy compiled for that release's ABI, which
 * .ci/node-versions/better-sqlite3-abi.mjs loads in its place.
 */
export function repoSqliteAddon(): string {
  return process.env['GATEHOUSE_BETTER_SQLITE3_ADDON'] || join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')
}

/** Where prebuild-install looks for better-sqlite3 `version`'s binary for this Node before downloading it. */
export function cachedPrebuild(version: string): string {
  const url = prebuildUrl(version, process.versions.modules, process.platform, process.arch)
  const digest = createHash('sha512').update(url).digest('hex').slice(0, 6)
  return join(NPM_CACHE, '_prebuilds', `${digest}-${basename(url).replace(/[^a-zA-Z0-9.]+/g, '-')}`)
}

/**
 * Puts the better-sqlite3 binary compiled in `moduleDir` (or `binary`, compiled from it for this
 * Node) into prebuild-install's cache, under this Node's ABI, so installing that version again
 * (the other end, the next run, a fresh cache) does not compile it.
 */
export function keepCompiledSqlite(moduleDir: string, binary = join(moduleDir, 'build', 'Release', 'better_sqlite3.node')): void {
  if (!existsSync(binary)) return
  const { version } = JSON.parse(readFileSync(join(moduleDir, 'package.json'), 'utf8')) as { version: string }
  const cached = cachedPrebuild(version)
  if (existsSync(cached)) return
  mkdirSync(join(NPM_CACHE, '_prebuilds'), { recursive: true })
  const staging = mkdtempSync(join(tmpdir(), 'gatehouse-prebuild-'))
  mkdirSync(join(staging, 'build', 'Release'), { recursive: true })
  copyFileSync(binary, join(staging, 'build', 'Release', 'better_sqlite3.node'))
  const partial = `${cached}.${process.pid}.tmp`
  const packed = spawnSync('tar', ['czf', partial, '-C', staging, 'build'])
  rmSync(staging, { recursive: true, force: true })
  if (packed.status === 0) renameSync(partial, cached)
  else rmSync(partial, { force: true })
}
