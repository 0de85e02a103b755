// IP address text without `node:net` (edge runtimes have none): accepts exactly what Node's
// `isIP` accepts (the property tests compare the two), in one left-to-right pass.

/** A parsed address: 4 bytes for IPv4, 16 for IPv6 (an IPv6 zone id is dropped). */
export interface IpAddress {
  readonly family: 4 | 6
  readonly bytes: Uint8Array
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30
  if (code >= 0x61 && code <= 0x66) return code - 0x57
  if (code >= 0x41 && code <= 0x46) return code - 0x37
  return -1
}

/**
 * Dotted-quad IPv4 in `text[start, end)` as an unsigned 32-bit number, or -1: four decimal
 * parts of 0-255 without leading zeros (`01.2.3.4` is refused, as Node refuses it).
 */
function parseIpv4(text: string, start: number, end: number): number {
  let value = 0
  let parts = 0
  let i = start
  while (parts < 4) {
    const partStart = i
    let part = 0
    while (i < end && i - partStart < 4) {
      const code = text.charCodeAt(i)
      if (code < 0x30 || code > 0x39) break
      part = part * 10 + (code - 0x30)
      i++
    }
    const digits = i - partStart
    if (digits === 0 || digits > 3 || part > 255 || (digits > 1 && text.charCodeAt(partStart) === 0x30)) return -1
    value = value * 256 + part
    parts++
    if (parts < 4) {
      if (i >= end || text.charCodeAt(i) !== 0x2e) return -1
      i++
    }
  }
  return i === end ? value : -1
}

/** An IPv6 zone id as Node accepts it: one or more of `[0-9A-Za-z.:-]`. */
function isZone(text: string, start: number): boolean {
  if (start >= text.length) return false
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const ok =
      (code >= 0x30 && code <= 0x3a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x2e || code === 0x2d
    if (!ok) return false
  }
  return true
}

/**
 * IPv6 in `text[0, end)` (no zone) as 16 bytes, or `null`: eight groups of 1-4 hex digits,
 * or at most seven around one `::` (which Node's pattern lets stand for a single zero group,
 * `1:2:3:4:5:6:7::`), the last two optionally written as a dotted IPv4 tail.
 */
function parseIpv6(text: string, end: number): Uint8Array | null {
  const groups: number[] = []
  let gap = -1
  let i = 0
  if (text.charCodeAt(0) === 0x3a) {
    if (text.charCodeAt(1) !== 0x3a) return null
    gap = 0
    i = 2
  }
  while (i < end && groups.length < 8) {
    let j = i
    let value = 0
    while (j < end && j - i < 5) {
      const digit = hexValue(text.charCodeAt(j))
      if (digit < 0) break
      value = value * 16 + digit
      j++
    }
    if (j < end && text.charCodeAt(j) === 0x2e) {
      // A dotted IPv4 tail: only last, and only where two groups still fit.
      const v4 = parseIpv4(text, i, end)
      if (v4 < 0) return null
      groups.push(v4 >>> 16, v4 & 0xffff)
      i = end
      break
    }
    if (j === i || j - i > 4) return null
    groups.push(value)
    if (j === end) {
      i = end
      break
    }
    if (text.charCodeAt(j) !== 0x3a) return null
    if (text.charCodeAt(j + 1) === 0x3a) {
      if (gap !== -1) return null
      gap = groups.length
      i = j + 2
    } else {
      i = j + 1
      // A single trailing colon ends no group.
      if (i === end) return null
    }
  }
  if (i !== end) return null
  if (gap === -1 ? groups.length !== 8 : groups.length > 7) return null
  const bytes = new Uint8Array(16)
  const tail = gap === -1 ? 0 : groups.length - gap
  for (let g = 0; g < groups.length; g++) {
    // Groups after the gap are right-aligned; the gap's groups stay zero.
    const slot = gap !== -1 && g >= gap ? 8 - tail + (g - gap) : g
    bytes[slot * 2] = groups[g]! >> 8
    bytes[slot * 2 + 1] = groups[g]! & 0xff
  }
  return bytes
}

/**
 * Parses an IPv4 or IPv6 address as Node's `isIP` reads it (an IPv6 zone such as `%eth0`
 * is accepted and dropped); `null` for anything else.
 */
export function parseIp(text: string): IpAddress | null {
  const v4 = parseIpv4(text, 0, text.length)
  if (v4 >= 0) return { family: 4, bytes: Uint8Array.of(v4 >>> 24, (v4 >>> 16) & 0xff, (v4 >>> 8) & 0xff, v4 & 0xff) }
  const zone = text.indexOf('%')
  if (zone !== -1 && !isZone(text, zone + 1)) return null
  const bytes = parseIpv6(text, zone === -1 ? text.length : zone)
  return bytes === null ? null : { family: 6, bytes }
}

/** `node:net`'s `isIP`: 4, 6, or 0 for text that is neither. */
export function ipFamily(text: string): 0 | 4 | 6 {
  return parseIp(text)?.family ?? 0
}
