import { fileURLToPath } from 'node:url'
import { vi } from 'vitest'

/** The module through which the core reaches `node:buffer` (absolute, so any test file can mock it). */
const NATIVE_BUFFER = fileURLToPath(new URL('../../src/core/encoding/native-buffer.ts', import.meta.url))

/** The two ways the core runs: with Node's Buffer as its fast path, and portable (what edge runtimes run). */
export const NATIVE_BUFFER_VARIANTS = [
  ['with node:buffer', true],
  ['portable (no node:buffer)', false],
] as const

/**
 * The module `load` imports, loaded afresh with Node's Buffer (the fast path) or without it
 * (`nativeBuffer` undefined), so one test file checks both paths against the same oracle.
 */
export async function importWithNodeBuffer<T>(withNodeBuffer: boolean, load: () => Promise<T>): Promise<T> {
  vi.resetModules()
  if (!withNodeBuffer) vi.doMock(NATIVE_BUFFER, () => ({ nativeBuffer: undefined }))
  try {
    return await load()
  } finally {
    vi.doUnmock(NATIVE_BUFFER)
    vi.resetModules()
  }
}
