/**
 * Builds a module and everything it imports into one ES module, as an app's bundler would:
 * - for the edge (`bundleWorker`): esbuild's browser platform with the `worker` and `browser`
 *   export conditions, as a Cloudflare Workers or Vercel Edge build does, so a `node:` import
 *   anywhere in what the entry reaches fails the build instead of being left to the runtime;
 * - for a server runtime (`bundleScript`): Node's platform and resolution, which is what Bun
 *   and Deno give a package installed from npm.
 * `drf-gatehouse` and `gatehouse/*` resolve to this checkout's source through tsconfig.json's
 * `paths`, as in the rest of the tests.
 */
import { build, type BuildOptions, type Message } from 'esbuild'
import { builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A built module: its code and the files (relative to the repository) it was built from. */
export interface ModuleBundle {
  readonly code: string
  readonly inputs: readonly string[]
}

/** Thrown when the build fails: the unresolvable imports and other errors, one a line. */
export class BundleError extends Error {
  constructor(readonly errors: readonly Message[]) {
    super(`the bundle failed:\n${errors.map(describe).join('\n')}`)
  }
}

/** `Could not resolve "node:crypto" (src/crypto/random.ts:1:29)` */
function describe(message: Message): string {
  const where = message.location === null ? '' : ` (${message.location.file}:${message.location.line}:${message.location.column})`
  return `${message.text}${where}`
}

async function bundle(entry: string, platform: Pick<BuildOptions, 'platform' | 'conditions' | 'external'>): Promise<ModuleBundle> {
  let result
  try {
    result = await build({
      ...platform,
      absWorkingDir: ROOT,
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'errors' in error && Array.isArray(error.errors)) {
      throw new BundleError(error.errors as Message[])
    }
    throw error
  }
  const output = result.outputFiles[0]
  if (output === undefined) throw new Error('esbuild wrote no output')
  return { code: output.text, inputs: Object.keys(result.metafile.inputs) }
}

/**
 * Bundles `entry` (a path relative to the repository root) for an edge runtime.
 *
 * @throws BundleError listing every import the edge build cannot resolve (each `node:` one)
 */
export function bundleWorker(entry: string): Promise<ModuleBundle> {
  return bundle(entry, { platform: 'browser', conditions: ['worker', 'browser'] })
}

/**
 * Bundles `entry` for an edge runtime as Wrangler does with the `nodejs_compat` flag: Node's
 * built-in modules are left as imports (resolved by the runtime), so an entry that merely
 * re-exports a Node-only module builds, and what the app does not use is shaken out.
 */
export function bundleWorkerNodeCompat(entry: string): Promise<ModuleBundle> {
  const external = builtinModules.flatMap((name) => [name, `node:${name}`])
  return bundle(entry, { platform: 'browser', conditions: ['worker', 'browser'], external })
}

/** Bundles `entry` (relative to the repository root) for Bun or Deno: Node's resolution, `node:` modules left to the runtime. */
export function bundleScript(entry: string): Promise<ModuleBundle> {
  return bundle(entry, { platform: 'node' })
}
