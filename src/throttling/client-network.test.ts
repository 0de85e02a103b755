// The client's network as it was computed with node:net's isIP (kept here as the oracle), against
// the portable parser's answer: the same throttle identity for every address text.
import { isIP } from 'node:net'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { addressText } from '../../test/helpers/ip-address-arbitraries.js'
import { clientNetwork } from './client-ident.js'

function nodeIpv6Groups(address: string): number[] | null {
  const zone = address.indexOf('%')
  const text = zone === -1 ? address : address.slice(0, zone)
  if (isIP(text) !== 6) return null
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (group.includes('.')) {
            const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number)
            return [(a << 8) | b, (c << 8) | d]
          }
          return [parseInt(group, 16)]
        })
  const gap = text.indexOf('::')
  if (gap === -1) return parse(text)
  const head = parse(text.slice(0, gap))
  const tail = parse(text.slice(gap + 2))
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}

function nodeClientNetwork(address: string, ipv6Prefix: number): string {
  if (address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7)
  const groups = nodeIpv6Groups(address)
  if (groups === null) return address
  const masked = groups.map((group, i) => {
    const bits = Math.max(0, Math.min(16, ipv6Prefix - i * 16))
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff)
  })
  return `${masked.map((g) => g.toString(16)).join(':')}/${ipv6Prefix}`
}

it('clientNetwork gives the identity the node:net version gave, for any address text and prefix', () => {
  const withZoneJunk = fc.tuple(addressText, fc.constantFrom('', '%eth 0', '%%', '%_x')).map(([a, z]) => a + z)
  fc.assert(
    fc.property(fc.oneof(addressText, withZoneJunk), fc.integer({ min: 0, max: 128 }), (address, prefix) => {
      expect(clientNetwork(address, prefix)).toBe(nodeClientNetwork(address, prefix))
    }),
    { numRuns: 3000 },
  )
})
