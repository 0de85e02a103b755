// node:net is the oracle here (tests may import it; the code under test must not).
import { BlockList, isIP } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ipFamily, parseIp } from './ip-address.js'
import { addressText, blockListReadsWhole } from '../../../test/helpers/ip-address-arbitraries.js'

/** 16 bytes as eight full hex groups: a form Node reads without any shorthand of ours. */
function fullForm(bytes: Uint8Array): string {
  return Array.from({ length: 8 }, (_, i) => ((bytes[i * 2]! << 8) | bytes[i * 2 + 1]!).toString(16)).join(':')
}

describe('ipFamily is node:net isIP', () => {
  it('on likely addresses and their near misses', () => {
    fc.assert(
      fc.property(addressText, (text) => {
        expect(ipFamily(text)).toBe(isIP(text))
      }),
      { numRuns: 5000 },
    )
  })

  it('on any short text over the characters addresses are made of', () => {
    const char = fc.constantFrom(...'0123456789abcdefABCDEFg:.%/ -_'.split(''))
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }).map((c) => c.join('')), (text) => {
        expect(ipFamily(text)).toBe(isIP(text))
      }),
      { numRuns: 3000 },
    )
  })

  it.each([
    ['1.2.3.4', 4],
    ['01.2.3.4', 0],
    ['256.1.1.1', 0],
    ['1.2.3', 0],
    ['1.2.3.4.5', 0],
    ['::', 6],
    ['::1', 6],
    [':1', 0],
    ['1:', 0],
    ['1:2:3:4:5:6:7::', 6],
    ['::2:3:4:5:6:7:8', 6],
    ['1::2:3:4:5:6:7:8', 0],
    ['1:2:3:4:5:6:7:8', 6],
    ['1:2:3:4:5:6:1.2.3.4', 6],
    ['1:2:3:4:5:6:7:1.2.3.4', 0],
    ['::ffff:1.2.3.4', 6],
    ['::ffff:01.2.3.4', 0],
    ['1.2.3.4::', 0],
    ['fe80::1%eth0', 6],
    ['fe80::1%', 0],
    ['fe80::1%a%b', 0],
    ['1.2.3.4%eth0', 0],
    ['12345::', 0],
    ['', 0],
    [' ::1', 0],
  ])('%j → %i', (text, family) => {
    expect(ipFamily(text)).toBe(family)
    expect(isIP(text)).toBe(family)
  })
})

describe('parseIp reads the address Node reads', () => {
  it('every IPv6 address parses to the bytes Node puts in a /128 of it (and no neighbour)', () => {
    fc.assert(
      fc.property(addressText.filter((text) => isIP(text) === 6 && blockListReadsWhole(text)), fc.nat(127), (text, bit) => {
        const parsed = parseIp(text)
        expect(parsed?.family).toBe(6)
        const list = new BlockList()
        list.addSubnet(text, 128, 'ipv6')
        expect(list.check(fullForm(parsed!.bytes), 'ipv6')).toBe(true)
        const neighbour = Uint8Array.from(parsed!.bytes)
        neighbour[bit >> 3]! ^= 0x80 >> (bit & 7)
        expect(list.check(fullForm(neighbour), 'ipv6')).toBe(false)
      }),
      { numRuns: 2000 },
    )
  })

  it('IPv4 bytes in order', () => {
    expect(parseIp('10.20.30.255')).toEqual({ family: 4, bytes: Uint8Array.of(10, 20, 30, 255) })
  })

  it('a zone id is dropped; the address is the same', () => {
    expect(parseIp('fe80::1%eth0')?.bytes).toEqual(parseIp('fe80::1')?.bytes)
  })

  it('a long input is read in one pass (no backtracking blow-up)', () => {
    expect(ipFamily(`fe80::1%${'a'.repeat(100_000)}`)).toBe(6)
    expect(ipFamily(`${'1:'.repeat(50_000)}1`)).toBe(0)
  })
})
