import { hmacSha256 } from '../crypto/hmac-sha256.js'
import { base64ToBytes, bytesToBase64Url } from '../core/encoding/base64.js'
import { utf8Decode, utf8Encode } from '../core/encoding/text.js'
import type { KeyValue } from './paginator.js'

/** A decoded cursor: which way to walk, and the key of the row to start beyond. */
export interface Cursor {
  readonly reverse: boolean
  /** `null`: from the start (forward) or from the end (reverse). */
  readonly key: readonly KeyValue[] | null
}

/** A key for the cursors' HMAC. */
export type CursorSecret = string | Uint8Array
const TAG_BYTES = 12

function tag(secret: string | Uint8Array, scope: string, payload: string): string {
  // Cursors already issued were tagged over exactly these bytes: scope, NUL, payload.
  return bytesToBase64Url(hmacSha256(secret, `${scope}\0${payload}`).subarray(0, TAG_BYTES))
}

/**
 * Constant-time comparison of a client's tag with the expected one. Every valid
 * tag has the same public length, so comparing the lengths first leaks nothing,
 * and no hashing of both sides is needed.
 */
function sameTag(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false
  let difference = 0
  // Every character is visited, with no early exit: the time depends on the length only.
  for (let i = 0; i < given.length; i++) difference |= given.charCodeAt(i) ^ expected.charCodeAt(i)
  return difference === 0
}

function encodeValue(value: KeyValue): unknown {
  return value instanceof Date ? { d: value.toISOString() } : value
}

function decodeValue(value: unknown): KeyValue | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const d = (value as Record<string, unknown>)['d']
    if (Object.keys(value).length === 1 && typeof d === 'string') {
      const date = new Date(d)
      return Number.isNaN(date.getTime()) ? undefined : date
    }
  }
  return undefined
}

/**
 * Encodes a cursor as `base64url(JSON) "." base64url(HMAC-SHA256)`: opaque to
 * clients, URL-safe, and bound to `scope` (the ordering), so a cursor from
 * another ordering or an edited one is rejected.
 */
export function encodeCursor(cursor: Cursor, scope: string, secret: CursorSecret): string {
  const body: unknown[] = [cursor.reverse ? 1 : 0, ...(cursor.key ?? []).map(encodeValue)]
  const payload = bytesToBase64Url(utf8Encode(JSON.stringify(body)))
  return `${payload}.${tag(secret, scope, payload)}`
}

/**
 * Decodes a cursor; `null` for anything that is not a cursor this scope and secret
 * produced (bad base64, bad tag, wrong shape, a key of the wrong length). With several
 * secrets (key rotation) a cursor signed by any of them is accepted.
 */
export function decodeCursor(
  text: string,
  scope: string,
  keyLength: number,
  secrets: CursorSecret | readonly CursorSecret[],
): Cursor | null {
  if (text.length > 4096) return null
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(text)
  if (match === null) return null
  const [, payload = '', mac = ''] = match
  const candidates: readonly CursorSecret[] = typeof secrets === 'string' || secrets instanceof Uint8Array ? [secrets] : secrets
  if (!candidates.some((secret) => sameTag(mac, tag(secret, scope, payload)))) return null
  let body: unknown
  try {
    body = JSON.parse(utf8Decode(base64ToBytes(payload)))
  } catch {
    return null
  }
  if (!Array.isArray(body) || (body[0] !== 0 && body[0] !== 1)) return null
  const reverse = body[0] === 1
  if (body.length === 1) return { reverse, key: null }
  if (body.length !== keyLength + 1) return null
  const key: KeyValue[] = []
  for (const raw of body.slice(1)) {
    const value = decodeValue(raw)
    if (value === undefined) return null
    key.push(value)
  }
  return { reverse, key }
}
