// Text to bytes and back without `Buffer`: TextEncoder/TextDecoder for UTF-8 (every runtime has
// them), a loop for Latin-1 (TextDecoder's 'latin1' label is windows-1252, which remaps 0x80-0x9f).
// Node's Buffer, where there is one, is the faster route to the same answers.
import { nativeBuffer } from './native-buffer.js'

const UTF8_ENCODER = new TextEncoder()
/** Lenient, as `Buffer.prototype.toString('utf8')`: bad sequences become U+FFFD. */
const UTF8_DECODER = new TextDecoder('utf-8', { ignoreBOM: true })

/** The UTF-8 bytes of a string (a lone surrogate becomes U+FFFD, as with `Buffer.from(text)`). */
export function utf8Encode(text: string): Uint8Array<ArrayBuffer> {
  if (nativeBuffer !== undefined) return nativeBuffer.from(text, 'utf8')
  return UTF8_ENCODER.encode(text)
}

/** Bytes as UTF-8, invalid sequences replaced by U+FFFD, a leading BOM kept. */
export function utf8Decode(bytes: Uint8Array): string {
  if (nativeBuffer !== undefined) return nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  return UTF8_DECODER.decode(bytes)
}

/** How many bytes `utf8Encode(text)` would give, without making them. */
export function utf8ByteLength(text: string): number {
  if (nativeBuffer !== undefined) return nativeBuffer.byteLength(text, 'utf8')
  let length = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) length += 1
    else if (code < 0x800) length += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair is one code point of four bytes.
      length += 4
      i++
    } else length += 3
  }
  return length
}

/** Each byte as the character of the same code (ISO-8859-1), as `Buffer.prototype.toString('latin1')`. */
export function latin1Decode(bytes: Uint8Array): string {
  if (nativeBuffer !== undefined) return nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  let out = ''
  // Chunks keep String.fromCharCode's argument list well under engines' limits.
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192))
  }
  return out
}

/** Each character's low byte, as `Buffer.from(text, 'latin1')`. */
export function latin1Encode(text: string): Uint8Array {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff
  return out
}
