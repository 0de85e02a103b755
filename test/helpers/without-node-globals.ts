// Setup of the 'web-standard' vitest project: the library's modules run as on an edge runtime,
// with no `Buffer` global and no `process.getBuiltinModule` (so no node:crypto or node:buffer fast
// path either): the portable code is what answers. Vitest's own worker needs the `Buffer` global
// (its messages and source maps), so rather than deleting it, reading it from a library module
// (src/, not a test) throws the ReferenceError an edge runtime would. Tests that need Node as an
// oracle import it explicitly (`import { Buffer } from 'node:buffer'`).
import { fileURLToPath } from 'node:url'

const LIBRARY = fileURLToPath(new URL('../../src/', import.meta.url))
const nodeBuffer = globalThis.Buffer

/**
 * The file of the code that read `Buffer`, from the raw call site: formatting a whole stack
 * (vitest maps every frame through source maps) would cost milliseconds per read.
 */
function readerFile(getter: (...args: never[]) => unknown): string {
  const { prepareStackTrace, stackTraceLimit } = Error
  try {
    Error.stackTraceLimit = 1
    Error.prepareStackTrace = (_error, sites) => sites
    const holder: { stack?: NodeJS.CallSite[] | string } = {}
    Error.captureStackTrace(holder, getter)
    const { stack } = holder
    if (Array.isArray(stack)) return stack[0]?.getFileName() ?? ''
    // Read while a stack trace is being formatted (source maps do): V8 then formats this one
    // itself, as text, so take the file from its one frame.
    return /\(?(?:file:\/\/)?(\/[^()]+?)(?::\d+){2}\)?$/m.exec(stack ?? '')?.[1] ?? ''
  } finally {
    Error.prepareStackTrace = prepareStackTrace
    Error.stackTraceLimit = stackTraceLimit
  }
}

Object.defineProperty(globalThis, 'Buffer', {
  configurable: true,
  get: function buffer(): typeof nodeBuffer {
    const file = readerFile(buffer)
    if (file.startsWith(LIBRARY) && !file.endsWith('.test.ts')) {
      throw new ReferenceError(`Buffer is not defined (the web-standard project hides it from library modules): read in ${file}`)
    }
    return nodeBuffer
  },
})
Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true })
