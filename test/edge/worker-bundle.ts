/**
 * Builds a Workers-style module (`export default { fetch }` or a Hono app) into one ES
 * module for an edge runtime, as a Cloudflare Workers or Vercel Edge build would: esbuild's
 * browser platform with the `worker` and `browser` export conditions, so a `node:` import
 * anywhere in what the entry reaches fails the build instead of being left to the runtime.
 * `gatehouse` and `gatehouse/*` resolve to this checkout's source through tsconfig.json's
 * `paths`, as in the rest of the tests.
 */
import { build, type Message } from 'esbuild'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A built worker: its code and the files (relative to the repository) it was built from. */
export interface WorkerBundle {
  readonly code: string
  readonly inputs: readonly string[]
}

/** Thrown when the build fails: the unresolvable imports and other errors, one a line. */
export class WorkerBundleError extends Error {
  constructor(readonly errors: readonly Message[]) {
    super(`the worker bundle failed:\n${errors.map(describe).join('\n')}`)
  }
}

/** `Could not resolve "node:crypto" (src/crypto/random.ts:1:29)` */
function describe(message: Message): string {
  const where = message.location === null ? '' : ` (${message.location.file}:${message.location.line}:${message.location.column})`
  return `${message.text}${where}`
}

/**
 * Bundles `entry` (a path relative to the repository root) for the edge.
 *
 * @throws WorkerBundleError listing every import the edge build cannot resolve
 */
export async function bundleWorker(entry: string): Promise<WorkerBundle> {
  let result
  try {
    result = await build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['worker', 'browser'],
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'errors' in error && Array.isArray(error.errors)) {
      throw new WorkerBundleError(error.errors as Message[])
    }
    throw error
  }
  const output = result.outputFiles[0]
  if (output === undefined) throw new Error('esbuild wrote no output')
  return { code: output.text, inputs: Object.keys(result.metafile.inputs) }
}
