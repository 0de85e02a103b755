/**
 * Preloaded by .ci/with-node (NODE_OPTIONS=--import) into every Node process it starts.
 *
 * The repository's node_modules/better-sqlite3 holds one native addon, compiled by `npm ci` for
 * the machine's Node (20), and a native addon loads only on the Node ABI it was compiled for.
 * Rather than a second node_modules per Node release, .ci/with-node compiles the same
 * better-sqlite3 once per ABI into a cache and names that file in
 * GATEHOUSE_BETTER_SQLITE3_ADDON; this loads it wherever the repository's own addon would be
 * loaded. Only that one file is redirected: a better-sqlite3 installed elsewhere (the scratch
 * apps of test/package/, with their own version) loads its own addon as usual.
 */
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'

const addon = process.env['GATEHOUSE_BETTER_SQLITE3_ADDON']
const own = join(import.meta.dirname, '..', '..', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')

/** The real path of `file`, or itself when it does not exist (the comparison then fails, as it should). */
function real(file) {
  try {
    return realpathSync(file)
  } catch {
    return file
  }
}

if (addon) {
  const ownReal = real(own)
  const dlopen = process.dlopen
  process.dlopen = function (module, filename, ...flags) {
    return dlopen.call(this, module, real(filename) === ownReal ? addon : filename, ...flags)
  }
}
