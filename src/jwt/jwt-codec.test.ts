// JwtCodec's `nbf` (not before) check alone, without Python: PyJWT 2.6's `_validate_nbf`,
// `int(nbf) > now + leeway` refuses.
import { describe, expect, it } from 'vitest'
import { JwtCodec } from './jwt-codec.js'
import { resolveJwtSettings, type JwtSettings } from './jwt-settings.js'
import { TokenError } from './token-error.js'

const KEY = 'nbf-unit-test-signing-key-0123456789abcdef'
const NOW = 1_700_000_000
const codecAt = (now: number, settings: Partial<JwtSettings> = {}): JwtCodec => new JwtCodec(resolveJwtSettings({ signingKey: KEY, ...settings }), () => now)
const issuer = codecAt(NOW)
const tokenWith = (nbf: unknown): Promise<string> => issuer.encode({ ...issuer.newPayload('access', NOW, 300), user_id: 2, nbf })

describe('JwtCodec: nbf', () => {
  it('a token not valid before a moment later than now is refused ("Token is invalid or expired"), from that moment on accepted', async () => {
    const token = await tokenWith(NOW + 60)
    await expect(codecAt(NOW).decode(token, 'access')).rejects.toThrow(new TokenError('Token is invalid or expired'))
    await expect(codecAt(NOW + 59.9).decode(token, 'access')).rejects.toThrow(TokenError)
    expect(await codecAt(NOW + 60).decode(token, 'access')).toMatchObject({ nbf: NOW + 60 })
    expect(await codecAt(NOW + 61).decode(token, 'access')).toMatchObject({ user_id: 2 })
  })

  it('a past or present nbf passes; the untyped verify path checks it too', async () => {
    expect(await issuer.decode(await tokenWith(NOW), 'access')).toMatchObject({ nbf: NOW })
    expect(await issuer.decode(await tokenWith(NOW - 3600), null)).toMatchObject({ nbf: NOW - 3600 })
    await expect(issuer.decode(await tokenWith(NOW + 1), null)).rejects.toThrow(TokenError)
  })

  it('LEEWAY admits an nbf up to that many seconds ahead, no further', async () => {
    const lenient = codecAt(NOW, { leeway: 30 })
    expect(await lenient.decode(await tokenWith(NOW + 30), 'access')).toMatchObject({ user_id: 2 })
    await expect(lenient.decode(await tokenWith(NOW + 31), 'access')).rejects.toThrow(TokenError)
  })

  it('read as PyJWT int(): a float is truncated, a string of digits counts, anything else is refused', async () => {
    expect(await issuer.decode(await tokenWith(NOW + 0.9), 'access')).toMatchObject({ user_id: 2 })
    await expect(issuer.decode(await tokenWith(NOW + 1.5), 'access')).rejects.toThrow(TokenError)
    expect(await issuer.decode(await tokenWith(String(NOW - 5)), 'access')).toMatchObject({ user_id: 2 })
    await expect(issuer.decode(await tokenWith(String(NOW + 5)), 'access')).rejects.toThrow(TokenError)
    for (const bad of ['soon', null, [NOW], { at: NOW }]) await expect(issuer.decode(await tokenWith(bad), 'access'), JSON.stringify(bad)).rejects.toThrow(TokenError)
  })
})
