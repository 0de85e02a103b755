import { randomBytes } from 'node:crypto'

/** DRF's token key format: 20 bytes from the CSPRNG as 40 lowercase hex characters. */
export function generateTokenKey(): string {
  return randomBytes(20).toString('hex')
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** A random string over `[a-zA-Z0-9]` from the CSPRNG, without modulo bias. */
export function randomAlphanumeric(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALNUM[byte % 62]
    }
  }
  return out
}
