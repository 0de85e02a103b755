// Runs in the 'web-standard' project only: proof that its setup really takes Node's globals away
// from the library, so the unit tests that pass there pass on the portable code.
import { runInThisContext } from 'node:vm'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { nativeBuffer } from '../../src/core/encoding/native-buffer.js'
import { nativeCrypto } from '../../src/crypto/native-crypto.js'

const LIBRARY = fileURLToPath(new URL('../../src/', import.meta.url))

describe('the web-standard project', () => {
  it('gives the library no node:crypto and no node:buffer (process.getBuiltinModule is gone)', () => {
    expect(nativeCrypto).toBeUndefined()
    expect(nativeBuffer).toBeUndefined()
  })

  it('throws ReferenceError where a library module reads the Buffer global', () => {
    expect(() => runInThisContext('Buffer.from("x")', { filename: `${LIBRARY}canary.ts` })).toThrow(ReferenceError)
    expect(() => runInThisContext('typeof Buffer', { filename: `${LIBRARY}canary.ts` })).toThrow(ReferenceError)
  })

  it('throws there too when the read happens while a stack trace is being formatted (V8 then gives text frames)', () => {
    const { prepareStackTrace } = Error
    let seen: unknown
    Error.prepareStackTrace = () => {
      try {
        return runInThisContext('typeof Buffer', { filename: `${LIBRARY}canary.ts` })
      } catch (error) {
        seen = error
        return ''
      }
    }
    try {
      void new Error('x').stack
    } finally {
      Error.prepareStackTrace = prepareStackTrace
    }
    expect(seen).toBeInstanceOf(ReferenceError)
  })

  it('still lets tests and the test runner read it', () => {
    expect(runInThisContext('typeof Buffer', { filename: `${LIBRARY}canary.test.ts` })).toBe('function')
    expect(typeof Buffer).toBe('function')
  })
})
