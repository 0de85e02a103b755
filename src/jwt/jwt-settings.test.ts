// resolveJwtSettings' checks of the keys and the JWKS URL, at start-up.
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../core/errors.js'
import { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'

const refused = (settings: JwtSettings): ConfigurationError => {
  const error = (() => {
    try {
      resolveJwtSettings(settings)
    } catch (e) {
      return e
    }
    return undefined
  })()
  expect(error).toBeInstanceOf(ConfigurationError)
  return error as ConfigurationError
}

describe('HMAC signing keys at least the hash\'s size (RFC 7518 §3.2)', () => {
  it.each([
    ['HS256', 32],
    ['HS384', 48],
    ['HS512', 64],
  ] as const)('%s: %i bytes are accepted, one fewer is a configuration error naming the minimum (and never the key)', (algorithm, bytes) => {
    expect(resolveJwtSettings({ algorithm, signingKey: 'k'.repeat(bytes) }).algorithm).toBe(algorithm)
    const error = refused({ algorithm, signingKey: 's'.repeat(bytes - 1) })
    expect(error.message).toContain(`at least ${bytes} bytes`)
    expect(error.message).not.toContain('s'.repeat(bytes - 1))
    expect(refused({ algorithm, signingKey: 'x' }).message).toContain(`at least ${bytes} bytes`)
  })

  it('counts bytes, not characters: 16 two-byte characters are 32 bytes', () => {
    expect(resolveJwtSettings({ signingKey: 'é'.repeat(16) }).algorithm).toBe('HS256')
    refused({ signingKey: 'é'.repeat(15) + 'a' })
  })
})

describe('jwkUrl', () => {
  it('https is accepted', () => {
    expect(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: 'https://idp.example/.well-known/jwks.json' }).jwkUrl?.href).toBe('https://idp.example/.well-known/jwks.json')
  })

  it('http is refused unless allowInsecureJwkUrl says so', () => {
    expect(refused({ algorithm: 'RS256', jwkUrl: 'http://idp.example/jwks' }).message).toContain('allowInsecureJwkUrl')
    refused({ algorithm: 'ES256', jwkUrl: 'http://127.0.0.1:8000/jwks/', allowInsecureJwkUrl: false })
    expect(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: 'http://127.0.0.1:8000/jwks/', allowInsecureJwkUrl: true }).jwkUrl?.protocol).toBe('http:')
  })
})
