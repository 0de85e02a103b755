import { latin1Decode, latin1Encode } from '../encoding/text.js'

/**
 * Splits an `Authorization` header the way DRF does: the value is taken byte for
 * byte (ISO-8859-1) and split on runs of ASCII whitespace. `[]` when absent or blank.
 * Each part is a Latin-1 string, so `latin1Encode(part)` recovers the bytes.
 */
export function splitAuthorizationHeader(header: string | null): string[] {
  if (header === null) return []
  // One scan, no regex: a part is a run of characters other than ASCII whitespace.
  const parts: string[] = []
  let start = -1
  for (let i = 0; i < header.length; i++) {
    if (isHeaderSpace(header.charCodeAt(i))) {
      if (start !== -1) parts.push(header.slice(start, i))
      start = -1
    } else if (start === -1) {
      start = i
    }
  }
  if (start !== -1) parts.push(start === 0 ? header : header.slice(start))
  return parts
}

/** Space, tab, LF, VT, FF, CR: what DRF's `.split()` of the header bytes splits on. */
function isHeaderSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d)
}

// Lives in encoding/ (pagination's cursors read it too); re-exported for the header's readers.
export { lenientBase64Decode } from '../encoding/python-base64.js'

/** One strict decoder for every call (without `stream`, each `decode` starts afresh). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Decodes bytes as UTF-8, or as Latin-1 when they are not valid UTF-8 (DRF, PR #7193). */
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
