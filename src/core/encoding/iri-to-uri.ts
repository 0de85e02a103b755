/**
 * The characters Django's `iri_to_uri` keeps as they are: RFC 3986's reserved and unreserved
 * characters, and `%` (RFC 3987 §3.1: an existing escape is not escaped again). By code unit.
 */
const KEPT = new Uint8Array(128)
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~/#%[]=:;$&()+,!?*@'") KEPT[ch.charCodeAt(0)] = 1

const ENCODER = new TextEncoder()
const HEX = '0123456789ABCDEF'

/**
 * Django's `iri_to_uri` (`quote(iri, safe="/#%[]=:;$&()+,!?*@'~")`): every other character
 * as its UTF-8 bytes, `%XX` each, so `/admin/€` is `/admin/%E2%82%AC` and DEL is `%7F`. What
 * comes out is printable ASCII, always a valid header value (`Location`). A lone surrogate,
 * which Python refuses to encode, is U+FFFD's bytes. Linear.
 */
export function iriToUri(iri: string): string {
  let out = ''
  let start = 0
  for (let i = 0; i < iri.length; i++) {
    const unit = iri.charCodeAt(i)
    if (unit < 128 && KEPT[unit] === 1) continue
    out += iri.slice(start, i)
    // A surrogate pair is one character: both halves are encoded together.
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < iri.length && (iri.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    const end = pair ? i + 2 : i + 1
    for (const byte of ENCODER.encode(iri.slice(i, end))) out += `%${HEX[byte >> 4] ?? ''}${HEX[byte & 15] ?? ''}`
    i = end - 1
    start = end
  }
  return start === 0 ? iri : out + iri.slice(start)
}
