import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { equalBytes, equalDigests, timingSafeEqual } from './timing-safe-equal.js'

/** `bytes` with the byte at `index` changed by `delta` (1..255), so it differs there only. */
function flipped(bytes: Uint8Array, index: number, delta = 1): Uint8Array {
  const copy = Uint8Array.from(bytes)
  copy[index] = (copy[index]! + delta) & 0xff
  return copy
}

const DIGEST = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff)

describe('equalBytes', () => {
  it('is true for equal bytes, including empty ones', () => {
    expect(equalBytes(DIGEST, Uint8Array.from(DIGEST))).toBe(true)
    expect(equalBytes(new Uint8Array(0), new Uint8Array(0))).toBe(true)
  })

  it.each([
    ['the first', 0],
    ['a middle', 16],
    ['the last', 31],
  ])('is false when only %s byte differs', (_, index) => {
    expect(equalBytes(DIGEST, flipped(DIGEST, index))).toBe(false)
    expect(equalBytes(flipped(DIGEST, index), DIGEST)).toBe(false)
  })

  it('is false when the first byte differs and the last bytes are equal (each byte counts, not only the last)', () => {
    const a = Uint8Array.of(1, 2, 3, 4)
    expect(equalBytes(a, Uint8Array.of(9, 2, 3, 4))).toBe(false)
    expect(equalBytes(a, Uint8Array.of(9, 9, 9, 4))).toBe(false)
  })

  it('is false for different lengths, a prefix of the other included', () => {
    expect(equalBytes(DIGEST, DIGEST.subarray(0, 31))).toBe(false)
    expect(equalBytes(DIGEST.subarray(0, 31), DIGEST)).toBe(false)
    expect(equalBytes(new Uint8Array(0), DIGEST)).toBe(false)
    expect(equalBytes(Uint8Array.of(0), new Uint8Array(0))).toBe(false)
  })

  it('is false whenever any one byte differs, at any position and by any amount (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, delta) => {
        const index = at % bytes.length
        expect(equalBytes(bytes, flipped(bytes, index, delta))).toBe(false)
        expect(equalBytes(bytes, Uint8Array.from(bytes))).toBe(true)
      }),
    )
  })
})

describe('equalDigests', () => {
  const HEX = 'f'.repeat(8) + '0123456789abcdef'.repeat(3) + '0'.repeat(8)
  /** `text` with the character at `index` replaced by another hex digit. */
  const changed = (text: string, index: number): string => text.slice(0, index) + (text[index] === 'a' ? 'b' : 'a') + text.slice(index + 1)

  it('is true for equal texts, including empty ones', () => {
    expect(equalDigests(HEX, `${HEX}`)).toBe(true)
    expect(equalDigests('', '')).toBe(true)
  })

  it.each([
    ['the first', 0],
    ['a middle', 32],
    ['the last', 63],
  ])('is false when only %s character differs', (_, index) => {
    expect(equalDigests(HEX, changed(HEX, index))).toBe(false)
    expect(equalDigests(changed(HEX, index), HEX)).toBe(false)
  })

  it('is false for different lengths, a prefix of the other included', () => {
    expect(equalDigests(HEX, HEX.slice(0, 63))).toBe(false)
    expect(equalDigests('', HEX)).toBe(false)
  })

  it('is false whenever any one character differs, at any position (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 1, maxLength: 128 }), fc.nat(), (text, at) => {
        expect(equalDigests(text, changed(text, at % text.length))).toBe(false)
        expect(equalDigests(text, text.split('').join(''))).toBe(true)
      }),
    )
  })
})

describe('timingSafeEqual', () => {
  it('compares strings and bytes by content, whatever their lengths', () => {
    expect(timingSafeEqual('secret', 'secret')).toBe(true)
    expect(timingSafeEqual('secret', 'Secret')).toBe(false)
    expect(timingSafeEqual('secret', 'secreT')).toBe(false)
    expect(timingSafeEqual('secret', 'secret!')).toBe(false)
    expect(timingSafeEqual('secret', 'secre')).toBe(false)
    expect(timingSafeEqual('', 'x')).toBe(false)
    expect(timingSafeEqual(new TextEncoder().encode('secret'), 'secret')).toBe(true)
  })
})
