// Python's lenient `base64.b64decode`, which DRF's cursors and Basic credentials both read:
// in the core, so that pagination and authentication each take it from below.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const B64_INDEX: ReadonlyMap<string, number> = new Map([...B64].map((c, i) => [c, i]))

/**
 * Python's lenient `base64.b64decode` (no validation): characters outside the
 * alphabet are skipped, data after the first complete padding is ignored, and only
 * a bad data length fails (`null`).
 */
export function lenientBase64Decode(input: string): Uint8Array | null {
  const out: number[] = []
  let quadPos = 0
  let leftChar = 0
  let pads = 0
  for (const ch of input) {
    if (ch === '=') {
      if (quadPos >= 2 && quadPos + ++pads >= 4) return Uint8Array.from(out)
      continue
    }
    const value = B64_INDEX.get(ch)
    if (value === undefined) continue
    pads = 0
    switch (quadPos) {
      case 0:
        quadPos = 1
        leftChar = value
        break
      case 1:
        quadPos = 2
        out.push(((leftChar << 2) | (value >> 4)) & 0xff)
        leftChar = value & 0x0f
        break
      case 2:
        quadPos = 3
        out.push(((leftChar << 4) | (value >> 2)) & 0xff)
        leftChar = value & 0x03
        break
      default:
        quadPos = 0
        out.push(((leftChar << 6) | value) & 0xff)
        leftChar = 0
    }
  }
  return quadPos === 0 ? Uint8Array.from(out) : null
}
