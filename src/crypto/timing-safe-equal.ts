import { createHash, timingSafeEqual as nodeTimingSafeEqual } from 'node:crypto'

/**
 * Compares two secrets in constant time. Both sides are hashed first so that
 * neither the content nor the length of the secret leaks through timing.
 */
export function timingSafeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return nodeTimingSafeEqual(ha, hb)
}
