// Node's Buffer is the oracle in the tests that use these, imported explicitly: the code under
// test must not need the global (the web-standard project makes library reads of it throw).
import { Buffer } from 'node:buffer'
import fc from 'fast-check'

/**
 * Any UTF-16 text, lone surrogates included: ASCII, the BMP, astral pairs and bare surrogates
 * (built by hand: fast-check's 'binary' unit takes seconds to warm up).
 */
export const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
    ),
    maxLength,
  })

/** Bytes as lower-case hex, by Node's Buffer (the oracle). */
export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex')
