// Node's Buffer is the oracle here, imported explicitly: the code under test must not need the global.
import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { importWithNodeBuffer, NATIVE_BUFFER_VARIANTS } from '../../../test/helpers/native-buffer-variants.js'
import { anyText, hex } from '../../../test/helpers/unicode-text.js'

const RUNS = { numRuns: 400 }

type Codec = typeof import('./base64.js')

describe.each(NATIVE_BUFFER_VARIANTS)('%s', (_name, withNodeBuffer) => {
  let codec: Codec
  beforeAll(async () => {
    codec = await importWithNodeBuffer(withNodeBuffer, () => import('./base64.js'))
  })

  describe('base64 encoding', () => {
    it('standard base64 with padding is what Buffer writes', () => {
      fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(codec.bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'))
      }), RUNS)
    })

    it('base64url without padding is what Buffer writes', () => {
      fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(codec.bytesToBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'))
      }), RUNS)
    })

    it('known vectors (RFC 4648 §10)', () => {
      const cases: Array<[string, string]> = [['', ''], ['f', 'Zg=='], ['fo', 'Zm8='], ['foo', 'Zm9v'], ['foob', 'Zm9vYg=='], ['fooba', 'Zm9vYmE='], ['foobar', 'Zm9vYmFy']]
      for (const [text, encoded] of cases) {
        expect(codec.bytesToBase64(new TextEncoder().encode(text))).toBe(encoded)
        expect(new TextDecoder().decode(codec.base64ToBytes(encoded))).toBe(text)
      }
      expect(codec.bytesToBase64Url(Uint8Array.of(0xfb, 0xff))).toBe('-_8')
    })
  })

  describe('base64 decoding', () => {
    it('round-trips both alphabets', () => {
      fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(hex(codec.base64ToBytes(codec.bytesToBase64(bytes)))).toBe(hex(bytes))
        expect(hex(codec.base64ToBytes(codec.bytesToBase64Url(bytes)))).toBe(hex(bytes))
      }), RUNS)
    })

    it("decodes any text exactly as Buffer.from(text, 'base64') does: junk skipped, stops at '=', a lone sextet dropped", () => {
      const char = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \n\t.!é\u{1F600}'.split(''))
      fc.assert(fc.property(fc.array(char, { maxLength: 40 }).map((chars) => chars.join('')), (text) => {
        expect(hex(codec.base64ToBytes(text))).toBe(Buffer.from(text, 'base64').toString('hex'))
        expect(hex(codec.base64ToBytes(text))).toBe(Buffer.from(text, 'base64url').toString('hex'))
      }), { numRuns: 1000 })
    })

    it('any string at all: the same bytes as Buffer, never a throw', () => {
      fc.assert(fc.property(anyText(40), (text) => {
        expect(hex(codec.base64ToBytes(text))).toBe(Buffer.from(text, 'base64').toString('hex'))
      }), RUNS)
    })
  })
})
