/**
 * Fills, ahead of `npm test`, the caches the package tests would otherwise fill themselves while
 * the rest of the suite waits for the CPU: the packed tarball (test/helpers/npm-pack.ts) and a
 * compiled better-sqlite3 for both ends of test/package/peer-ranges.test.ts (where no prebuilt
 * binary is reachable, compiling one takes minutes of a core). .ci/run starts it in the
 * background after `npm ci`, beside the single-threaded typecheck and lint, once for the machine's
 * Node and once each under .ci/with-node 22 and 24 (with the GATEHOUSE_PEER_ENDS the Node's test
 * step uses). It changes no test:
 * a cache it did not fill is filled by the test, as before.
 *
 * Usage: `npx tsx test/package/warm-caches.ts`
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packTarball } from '../helpers/npm-pack.js'
import { runCommand } from '../helpers/run-command.js'
import { newestSpec, oldestIn, peerEndsToTest, resolveVersion } from './peer-ends.js'
import { cachedPrebuild, keepCompiledSqlite } from './sqlite-prebuilds.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }
const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error']
const started = Date.now()
const log = (message: string): void => console.log(`warm-caches (${Math.round((Date.now() - started) / 1000)} s): ${message}`)

const work = mkdtempSync(join(tmpdir(), 'gatehouse-warm-'))
try {
  await packTarball(work)
  log('packed tarball cached')

  const range = PACKAGE.peerDependencies['better-sqlite3']
  if (range === undefined) throw new Error('package.json has no better-sqlite3 peer')
  // The ends this Node's peer-range test installs (GATEHOUSE_PEER_ENDS), compiled for this Node's ABI.
  const versions = await Promise.all(
    peerEndsToTest(process.env['GATEHOUSE_PEER_ENDS']).map((end) =>
      end === 'oldest' ? oldestIn(range) : resolveVersion('better-sqlite3', newestSpec('better-sqlite3', Number(process.versions.node.split('.')[0])), ROOT),
    ),
  )
  for (const version of versions) {
    if (existsSync(cachedPrebuild(version))) {
      log(`better-sqlite3 ${version}: already cached`)
      continue
    }
    const dir = mkdtempSync(join(work, `sqlite-${version}-`))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'warm-sqlite', private: true }))
    const install = await runCommand('npm', ['install', '--prefer-offline', ...NPM_QUIET, `better-sqlite3@${version}`], { cwd: dir, timeoutMs: 1_500_000 })
    if (install.code !== 0) throw new Error(`npm install better-sqlite3@${version}: ${install.stderr}`)
    keepCompiledSqlite(join(dir, 'node_modules', 'better-sqlite3'))
    log(`better-sqlite3 ${version}: ${existsSync(cachedPrebuild(version)) ? 'cached' : 'installed (a prebuilt binary, nothing to keep)'}`)
  }
} catch (error) {
  // Not a failure of CI: the tests fill what is missing themselves.
  log(`stopped: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
