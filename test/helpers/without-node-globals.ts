// Setup of the 'web-standard' vitest project: the library's modules run as on an edge runtime,
// with no `Buffer` global and no `process.getBuiltinModule` (so no node:crypto or node:buffer fast
// path either): the portable code is what answers. Vitest's own worker needs the `Buffer` global
// (its messages and source maps), so rather than deleting it, reading it from a library module
// (src/, not a test) throws the ReferenceError an edge runtime would. Tests that need Node as an
// oracle import it explicitly (`import { Buffer } from 'node:buffer'`).
import { fileURLToPath } from 'node:url'

const LIBRARY = fileURLToPath(new URL('../../src/', import.meta.url))
const nodeBuffer = globalThis.Buffer

/** The frame that read `Buffer`: [0] is "Error", [1] this getter, [2] the reader. */
function readerFrame(): string {
  return new Error().stack?.split('\n')[3] ?? ''
}

Object.defineProperty(globalThis, 'Buffer', {
  configurable: true,
  get(): typeof nodeBuffer {
    const frame = readerFrame()
    if (frame.includes(LIBRARY) && !/\.test\.ts:\d+/.test(frame)) {
      throw new ReferenceError(`Buffer is not defined (the web-standard project hides it from library modules): ${frame.trim()}`)
    }
    return nodeBuffer
  },
})
Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true })
