// node:net's BlockList is the oracle here (tests may import it; the code under test must not).
import { BlockList, isIP } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseIp } from './ip-address.js'
import { IpRangeList } from './ip-range-list.js'
import { addressText, blockListReadsWhole } from '../../../test/helpers/ip-address-arbitraries.js'

const validAddress = addressText.filter((text) => isIP(text) !== 0 && blockListReadsWhole(text))
const range = validAddress.chain((address) => fc.tuple(fc.constant(address), fc.integer({ min: 0, max: isIP(address) === 4 ? 32 : 128 })))

/** A peer near a range's network: the network itself with a few bits flipped, written out in full. */
function near(address: string, flips: readonly number[], asMapped: boolean): string {
  const parsed = parseIp(address)!
  const bytes = Uint8Array.from(parsed.bytes)
  for (const bit of flips) bytes[(bit >> 3) % bytes.length]! ^= 0x80 >> (bit & 7)
  if (parsed.family === 4) return asMapped ? `::ffff:${bytes.join('.')}` : bytes.join('.')
  return Array.from({ length: 8 }, (_, i) => ((bytes[i * 2]! << 8) | bytes[i * 2 + 1]!).toString(16)).join(':')
}

describe('IpRangeList answers as node:net BlockList (addSubnet, check)', () => {
  it('for random ranges of both families and peers near them, in them, and anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(range, { minLength: 1, maxLength: 4 }),
        fc.oneof(
          validAddress,
          fc.tuple(fc.nat(3), fc.array(fc.nat(127), { maxLength: 3 }), fc.boolean()),
        ),
        (ranges, peerChoice) => {
          const ours = new IpRangeList()
          const node = new BlockList()
          for (const [address, prefix] of ranges) {
            ours.addSubnet(address, prefix)
            node.addSubnet(address, prefix, isIP(address) === 4 ? 'ipv4' : 'ipv6')
          }
          const peer = typeof peerChoice === 'string' ? peerChoice : near(ranges[peerChoice[0] % ranges.length]![0], peerChoice[1], peerChoice[2])
          expect(ours.check(peer)).toBe(node.check(peer, isIP(peer) === 4 ? 'ipv4' : 'ipv6'))
        },
      ),
      { numRuns: 3000 },
    )
  })

  it.each([
    ['123.123.123.0', 24, '::ffff:7b7b:7b01', true],
    ['0.0.0.0', 0, '2001::1', false],
    ['0.0.0.0', 0, '::ffff:1.2.3.4', true],
    ['::ffff:0:0', 96, '1.2.3.4', true],
    ['::', 0, '1.2.3.4', true],
    ['fe80::', 10, 'fe80::1%eth0', true],
    ['10.0.0.0', 8, '11.0.0.1', false],
  ] as const)('%s/%i holds %s: %s', (network, prefix, peer, expected) => {
    const list = new IpRangeList()
    list.addSubnet(network, prefix)
    expect(list.check(peer)).toBe(expected)
  })

  it('text that is not an address is in no range', () => {
    const list = new IpRangeList()
    list.addSubnet('::', 0)
    expect(list.check('garbage')).toBe(false)
    expect(list.check('')).toBe(false)
  })

  it('refuses a malformed range', () => {
    const list = new IpRangeList()
    expect(() => list.addSubnet('1.2.3.4', 33)).toThrow(RangeError)
    expect(() => list.addSubnet('::1', 129)).toThrow(RangeError)
    expect(() => list.addSubnet('1.2.3', 8)).toThrow(RangeError)
    expect(() => list.addSubnet('1.2.3.4', 1.5)).toThrow(RangeError)
  })
})
