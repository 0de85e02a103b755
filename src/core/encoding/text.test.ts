// Node's Buffer is the oracle here, imported explicitly: the code under test must not need the global.
import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { importWithNodeBuffer, NATIVE_BUFFER_VARIANTS } from '../../../test/helpers/native-buffer-variants.js'
import { anyText, hex } from '../../../test/helpers/unicode-text.js'

const RUNS = { numRuns: 400 }

type Codec = typeof import('./text.js')

describe.each(NATIVE_BUFFER_VARIANTS)('%s', (_name, withNodeBuffer) => {
  let codec: Codec
  beforeAll(async () => {
    codec = await importWithNodeBuffer(withNodeBuffer, () => import('./text.js'))
  })

  describe('UTF-8', () => {
    it('encodes any string (lone surrogates included) to the bytes Buffer makes', () => {
      fc.assert(fc.property(anyText(40), (text) => {
        expect(hex(codec.utf8Encode(text))).toBe(Buffer.from(text, 'utf8').toString('hex'))
        expect(codec.utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'))
      }), RUNS)
    })

    it('byte length of lone and paired surrogates', () => {
      expect(codec.utf8ByteLength('\ud800')).toBe(3)
      expect(codec.utf8ByteLength('\udc00x')).toBe(4)
      expect(codec.utf8ByteLength('\ud83d\ude00')).toBe(4)
      expect(codec.utf8ByteLength('\ud83d\ud83d\ude00')).toBe(7)
    })

    it('decodes any bytes as Buffer does (U+FFFD for bad sequences, a BOM kept)', () => {
      fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(codec.utf8Decode(bytes)).toBe(Buffer.from(bytes).toString('utf8'))
      }), RUNS)
      expect(codec.utf8Decode(Uint8Array.of(0xef, 0xbb, 0xbf, 0x41))).toBe('\ufeffA')
    })
  })

  describe('Latin-1', () => {
    it('decodes every byte to the character of the same code, as Buffer does (not windows-1252)', () => {
      const all = Uint8Array.from({ length: 256 }, (_, i) => i)
      expect(codec.latin1Decode(all)).toBe(Buffer.from(all).toString('latin1'))
      fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(codec.latin1Decode(bytes)).toBe(Buffer.from(bytes).toString('latin1'))
      }), RUNS)
    })

    it('decodes more bytes than one String.fromCharCode call takes', () => {
      const big = new Uint8Array(200_000).fill(0xe9)
      expect(codec.latin1Decode(big)).toBe('\u00e9'.repeat(200_000))
    })

    it("encodes as Buffer.from(text, 'latin1'): each character's low byte", () => {
      fc.assert(fc.property(anyText(40), (text) => {
        expect(hex(codec.latin1Encode(text))).toBe(Buffer.from(text, 'latin1').toString('hex'))
      }), RUNS)
    })
  })
})
