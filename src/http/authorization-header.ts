import { latin1Decode, latin1Encode } from '../core/encoding/text.js'

/**
 * Splits an `Authorization` header the way DRF does: the value is taken byte for
 * byte (ISO-8859-1) and split on runs of ASCII whitespace. `[]` when absent or blank.
 * Each part is a Latin-1 string, so `latin1Encode(part)` recovers the bytes.
 */
export function splitAuthorizationHeader(header: string | null): string[] {
  if (header === null) return []
  return header.split(/[ \t\r\n\v\f]+/).filter((part) => part !== '')
}

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

/** Decodes bytes as UTF-8, or as Latin-1 when they are not valid UTF-8 (DRF, PR #7193). */
/** One strict decoder for every call (without `stream`, each `decode` starts afresh). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export function decodeUtf8OrLatin1(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes)
  } catch {
    return latin1Decode(bytes)
  }
}

/** Decodes bytes as strict UTF-8, or `null` when they are not valid UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes)
  } catch {
    return null
  }
}

/**
 * A header value (a Latin-1 string, one character per byte) read as strict UTF-8, as
 * `decodeUtf8Strict(latin1Encode(value))`; `null` when its bytes are not UTF-8.
 * An ASCII value (the usual case: token keys) is its own decoding and is returned as is.
 */
export function headerValueAsUtf8(value: string): string | null {
  let ascii = true
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      ascii = false
      break
    }
  }
  return ascii ? value : decodeUtf8Strict(latin1Encode(value))
}
