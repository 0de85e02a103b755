import { nativeBuffer } from '../encoding/native-buffer.js'

/**
 * The first index at or after `from` where `needle` occurs in `haystack`, or -1: Node's
 * `Buffer.prototype.indexOf` where there is one, else Knuth-Morris-Pratt, linear in the
 * haystack whatever the needle (a client picks both: the multipart boundary and the body).
 */
export function findBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  if (nativeBuffer !== undefined) {
    return nativeBuffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle, from)
  }
  if (needle.length === 0) return Math.min(from, haystack.length)
  // failure[i]: the length of the longest proper prefix of needle[0..i] that is also its suffix.
  const failure = new Int32Array(needle.length)
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = failure[k - 1]!
    if (needle[i] === needle[k]) k++
    failure[i] = k
  }
  for (let i = Math.max(0, from), k = 0; i < haystack.length; i++) {
    while (k > 0 && haystack[i] !== needle[k]) k = failure[k - 1]!
    if (haystack[i] === needle[k]) k++
    if (k === needle.length) return i - needle.length + 1
  }
  return -1
}
