// Node's Buffer is the oracle, imported explicitly: the code under test must not need the global.
import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { importWithNodeBuffer, NATIVE_BUFFER_VARIANTS } from '../../../test/helpers/native-buffer-variants.js'

type Search = typeof import('./find-bytes.js')

// Two-letter alphabets make matches, near misses and overlaps common.
const bytes = (maxLength: number): fc.Arbitrary<Uint8Array> => fc.array(fc.constantFrom(0x61, 0x62), { maxLength }).map((a) => Uint8Array.from(a))

describe.each(NATIVE_BUFFER_VARIANTS)('findBytes, %s', (_name, withNodeBuffer) => {
  let search: Search
  beforeAll(async () => {
    search = await importWithNodeBuffer(withNodeBuffer, () => import('./find-bytes.js'))
  })

  it("finds what Buffer's indexOf finds, from any start", () => {
    fc.assert(
      fc.property(bytes(40), bytes(6).filter((n) => n.length > 0), fc.nat(45), (haystack, needle, from) => {
        expect(search.findBytes(haystack, needle, from)).toBe(Buffer.from(haystack).indexOf(Buffer.from(needle), from))
      }),
      { numRuns: 1000 },
    )
  })

  it('reads a view at an offset into a larger buffer', () => {
    const whole = Uint8Array.from([1, 2, 3, 1, 2, 3, 4])
    expect(search.findBytes(whole.subarray(3), Uint8Array.of(1, 2))).toBe(0)
    expect(search.findBytes(whole.subarray(1), Uint8Array.of(3, 4))).toBe(4)
    expect(search.findBytes(whole.subarray(0, 6), Uint8Array.of(3, 4))).toBe(-1)
  })
})
