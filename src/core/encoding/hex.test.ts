import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { bytesToHex } from './hex.js'

it("lowercase hex, as Buffer's toString('hex')", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
    expect(bytesToHex(bytes)).toBe(Buffer.from(bytes).toString('hex'))
  }), { numRuns: 1000 })
})
