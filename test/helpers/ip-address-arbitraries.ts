// Address text for the property tests: well-formed IPv4/IPv6 in every written form (compressed,
// mixed case, IPv4 tails, zone ids), and the same with one character inserted or removed, so
// the near misses that parsers get wrong come up often.
import fc from 'fast-check'

const octet = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0, 1, 255, 256, 999))
const ipv4Text = fc.tuple(octet, octet, octet, octet, fc.boolean()).map(([a, b, c, d, leadingZero]) => {
  const parts = [a, b, c, d].map(String)
  if (leadingZero) parts[0] = `0${parts[0]}`
  return parts.join('.')
})

const group = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 15 }))

/** Eight groups written out, with a `::` over some run of them, maybe an IPv4 tail, case and zone mixed. */
const ipv6Text = fc
  .record({
    groups: fc.array(group, { minLength: 8, maxLength: 8 }),
    gapStart: fc.integer({ min: -1, max: 8 }),
    gapLength: fc.integer({ min: 0, max: 8 }),
    v4Tail: fc.boolean(),
    upper: fc.boolean(),
    padded: fc.boolean(),
    zone: fc.oneof(fc.constant(''), fc.constant('%eth0'), fc.constant('%1'), fc.constant('%a.b:c-d'), fc.constant('%'), fc.constant('%e th'), fc.constant('%_')),
  })
  .map(({ groups, gapStart, gapLength, v4Tail, upper, padded, zone }) => {
    let parts = groups.map((g) => (padded ? g.toString(16).padStart(4, '0') : g.toString(16)))
    if (v4Tail) {
      const [x = 0, y = 0] = groups.slice(6)
      parts = [...parts.slice(0, 6), `${x >> 8}.${x & 0xff}.${y >> 8}.${y & 0xff}`]
    }
    let text: string
    if (gapStart < 0 || gapStart > parts.length) text = parts.join(':')
    else {
      const end = Math.min(parts.length, gapStart + gapLength)
      text = `${parts.slice(0, gapStart).join(':')}::${parts.slice(end).join(':')}`
    }
    return (upper ? text.toUpperCase() : text) + zone
  })

const mutation = fc.record({ at: fc.nat(60), remove: fc.boolean(), char: fc.constantFrom(':', '.', '%', '0', 'a', 'F', 'g', ' ', '::', '1') })

/** Likely addresses, and near misses of them. */
export const addressText: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(ipv4Text, ipv6Text, fc.constantFrom('::', '::1', '0.0.0.0', '::ffff:1.2.3.4', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8')), fc.option(mutation, { freq: 2 }))
  .map(([text, change]) => {
    if (change === null) return text
    const at = change.at % (text.length + 1)
    return change.remove ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + change.char + text.slice(at)
  })

/**
 * Node's BlockList reads an address with a zone id through libuv's `uv_ip6_addr`, which cuts
 * the part before `%` to 39 characters: a fully padded address with a zone
 * (`0000:…:0.0.76.100%eth0`) becomes another address there. That is a libuv defect, not
 * behaviour to copy, so comparisons with BlockList leave such text out.
 */
export function blockListReadsWhole(text: string): boolean {
  const zone = text.indexOf('%')
  return zone === -1 || zone < 40
}
