import { createPrivateKey, generateKeyPairSync } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CompactSign, createLocalJWKSet, compactVerify, decodeProtectedHeader } from 'jose'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { router } from '../adapters/node-http/index.js'
import { createApi } from '../core/api.js'
import { ConfigurationError } from '../core/errors.js'
import { route } from '../core/route.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { jwksView } from './jwks-view.js'
import { JwtCodec } from './jwt-codec.js'
import { publicJwkFromPem, type JwtAlgorithm } from './jwt-keys.js'
import { resolveJwtSettings } from './jwt-settings.js'
import { TokenError } from './token-error.js'
import { jwtObtainPairView, jwtRefreshView, refreshPayloadFor } from './token-views.js'

type Pair = { readonly privateKey: string; readonly publicKey: string }
const rsa = (bits = 2048): Pair =>
  generateKeyPairSync('rsa', { modulusLength: bits, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })
const ec = (namedCurve: string): Pair =>
  generateKeyPairSync('ec', { namedCurve, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })

const PAIRS: Record<JwtAlgorithm, Pair | null> = {
  HS256: null,
  HS384: null,
  HS512: null,
  RS256: rsa(),
  RS384: rsa(),
  RS512: rsa(),
  ES256: ec('prime256v1'),
  ES384: ec('secp384r1'),
  ES512: ec('secp521r1'),
}
const ana = { id: 7, username: 'ana', isActive: true, isStaff: false, isAuthenticated: true } as const
const now = (): number => Date.now() / 1000

describe.each(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as const)('%s', (algorithm) => {
  const pair = PAIRS[algorithm] as Pair
  const signer = new JwtCodec(resolveJwtSettings({ algorithm, signingKey: pair.privateKey, verifyingKey: pair.publicKey }))
  const verifier = new JwtCodec(resolveJwtSettings({ algorithm, verifyingKey: pair.publicKey }))

  it('signs with the private key (header alg, kid, typ); a server with only the public key verifies', async () => {
    const token = await signer.encode(refreshPayloadFor(signer, ana, now()))
    const header = decodeProtectedHeader(token)
    expect(Object.keys(header)).toEqual(['alg', 'kid', 'typ'])
    expect(header).toMatchObject({ alg: algorithm, typ: 'JWT', kid: signer.settings.publicJwk?.kid })
    expect((await verifier.decode(token, 'refresh'))['user_id']).toBe(7)
    expect(verifier.canSign).toBe(false)
    await expect(verifier.encode({})).rejects.toThrow(ConfigurationError)
  })

  it('refuses a token signed by another key of the same kind, with the same message as any bad token', async () => {
    const stranger = algorithm.startsWith('RS') ? rsa() : ec({ ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' }[algorithm as 'ES256'])
    const forged = await new JwtCodec(resolveJwtSettings({ algorithm, signingKey: stranger.privateKey })).encode(refreshPayloadFor(signer, ana, now()))
    await expect(verifier.decode(forged, 'refresh')).rejects.toThrow('Token is invalid or expired')
    // HS256 signed with the public key's text (the classic algorithm confusion): refused before any signature check.
    const confused = await new CompactSign(new TextEncoder().encode(JSON.stringify(refreshPayloadFor(signer, ana, now()))))
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(pair.publicKey))
    await expect(verifier.decode(confused, 'refresh')).rejects.toThrow('Token is invalid or expired')
  })

  it('the JWKS document holds the public key under the kid the tokens carry; jose verifies with it', async () => {
    const jwk = signer.settings.publicJwk
    expect(jwk).toMatchObject({ kty: algorithm.startsWith('RS') ? 'RSA' : 'EC', alg: algorithm, use: 'sig' })
    expect(JSON.stringify(jwk)).not.toMatch(/"d"|"p"|"q"/)
    const token = await signer.encode(refreshPayloadFor(signer, ana, now()))
    const verified = await compactVerify(token, createLocalJWKSet({ keys: [jwk as never] }))
    expect(verified.protectedHeader.kid).toBe(jwk?.kid)
    expect(publicJwkFromPem(pair.publicKey, algorithm)).toEqual(jwk)
  })
})

describe('asymmetric settings are checked at start-up', () => {
  const bad: [string, Parameters<typeof resolveJwtSettings>[0]][] = [
    ['no key at all', { algorithm: 'RS256' }],
    ['a public key as the signing key', { algorithm: 'RS256', signingKey: (PAIRS.RS256 as Pair).publicKey }],
    ['a private key as the verifying key', { algorithm: 'RS256', verifyingKey: (PAIRS.RS256 as Pair).privateKey }],
    ['an EC key for RS256', { algorithm: 'RS256', signingKey: (PAIRS.ES256 as Pair).privateKey }],
    ['a P-384 key for ES256', { algorithm: 'ES256', signingKey: (PAIRS.ES384 as Pair).privateKey }],
    ['an RSA key for ES256', { algorithm: 'ES256', verifyingKey: (PAIRS.RS256 as Pair).publicKey }],
    ['a 1024-bit RSA key', { algorithm: 'RS256', signingKey: rsa(1024).privateKey }],
    ['a mismatched pair', { algorithm: 'RS256', signingKey: (PAIRS.RS256 as Pair).privateKey, verifyingKey: (PAIRS.RS384 as Pair).publicKey }],
    ['not PEM', { algorithm: 'ES256', signingKey: 'secret-secret-secret-secret' }],
    ['a verifying key for HS256', { signingKey: 'k'.repeat(32), verifyingKey: (PAIRS.RS256 as Pair).publicKey }],
    ['a JWK URL for HS256', { signingKey: 'k'.repeat(32), jwkUrl: 'https://idp.example/jwks' }],
    ['a relative JWK URL', { algorithm: 'RS256', jwkUrl: '/jwks' }],
    ['a file JWK URL', { algorithm: 'RS256', jwkUrl: 'file:///etc/jwks.json' }],
    ['an unknown algorithm', { algorithm: 'PS256' as JwtAlgorithm, signingKey: 'k'.repeat(32) }],
    ['HS256 without a key', {}],
  ]
  it.each(bad)('%s', (_, settings) => {
    expect(() => resolveJwtSettings(settings)).toThrow(ConfigurationError)
  })

  it('PKCS#1 and SEC1 private keys (openssl genrsa / ecparam) are read like PKCS#8; the verifying key defaults to the public half', () => {
    const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'pkcs1', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } })
    expect(rsaKey.privateKey).toContain('BEGIN RSA PRIVATE KEY')
    const a = resolveJwtSettings({ algorithm: 'RS256', signingKey: rsaKey.privateKey })
    expect(a.publicJwk).toEqual(publicJwkFromPem(rsaKey.publicKey, 'RS256'))
    const ecKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'sec1', format: 'pem' } })
    expect(ecKey.privateKey).toContain('BEGIN EC PRIVATE KEY')
    expect(resolveJwtSettings({ algorithm: 'ES256', signingKey: ecKey.privateKey }).publicJwk?.kid).toBe(publicJwkFromPem(ecKey.publicKey, 'ES256').kid)
  })

  it('views that issue tokens refuse a verifying-only codec when made; jwksView refuses an HMAC codec', () => {
    const verifier = new JwtCodec(resolveJwtSettings({ algorithm: 'ES256', verifyingKey: (PAIRS.ES256 as Pair).publicKey }))
    const users = new FakeUserStore()
    expect(() => jwtObtainPairView({ codec: verifier, users })).toThrow(ConfigurationError)
    expect(() => jwtRefreshView({ codec: verifier, users })).toThrow(ConfigurationError)
    expect(() => jwksView({ codec: new JwtCodec(resolveJwtSettings({ signingKey: 'k'.repeat(32) })) })).toThrow(ConfigurationError)
  })
})

/**
 * Token-like input for a verifier of `good`: any string, dotted base64 parts, `good` with a
 * few characters changed, and `good`'s payload and signature under an arbitrary JSON header
 * (any `alg`, any `kid`).
 */
function tokenLike(good: string): fc.Arbitrary<string> {
  const [, payload = '', signature = ''] = good.split('.')
  const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  return fc.oneof(
    fc.string(),
    fc.array(fc.base64String({ maxLength: 40 }), { maxLength: 5 }).map((parts) => parts.join('.')),
    fc.tuple(fc.nat(good.length - 1), fc.string({ maxLength: 3 })).map(([at, s]) => good.slice(0, at) + s + good.slice(at + 1)),
    fc
      .record({ alg: fc.oneof(fc.constantFrom('RS256', 'ES256', 'HS256', 'none', 'PS256'), fc.string()), kid: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), typ: fc.constant('JWT') }, { requiredKeys: [] })
      .map((header) => `${b64(header)}.${payload}.${signature}`),
  )
}

/** `codec` answers `good`'s claims for `good` and a `TokenError` for anything else: never another error (property). */
async function onlyTokenErrors(codec: JwtCodec, good: string, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(tokenLike(good), async (token) => {
      try {
        const claims = await codec.decode(token, 'refresh')
        expect(claims['user_id']).toBe(7)
      } catch (error) {
        expect(error).toBeInstanceOf(TokenError)
      }
    }),
    { numRuns },
  )
}

describe.each(['RS256', 'ES256'] as const)('%s verifying any input (property)', (algorithm) => {
  it('never throws anything but TokenError', async () => {
    const pair = PAIRS[algorithm] as Pair
    const signer = new JwtCodec(resolveJwtSettings({ algorithm, signingKey: pair.privateKey }))
    await onlyTokenErrors(new JwtCodec(resolveJwtSettings({ algorithm, verifyingKey: pair.publicKey })), await signer.encode(refreshPayloadFor(signer, ana, now())), 500)
  })
})

describe('jwkUrl (simplejwt JWK_URL) against a JWKS document served over HTTP', () => {
  const issuerPair = PAIRS.RS256 as Pair
  const rotatedPair = rsa()
  const issuer = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', signingKey: issuerPair.privateKey }))
  let server: Server
  let base: string
  let fetches = 0

  beforeAll(async () => {
    const api = createApi({ allowedHosts: ['127.0.0.1'] })
    const handle = router([route('/jwks/', api.view(jwksView({ codec: issuer, retiredKeys: [publicJwkFromPem(rotatedPair.publicKey, 'RS256')] })))])
    server = createServer((req, res) => {
      fetches += 1
      void handle(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())))

  it('serves the keys as JSON with a cache lifetime', async () => {
    const response = await fetch(`${base}/jwks/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('cache-control')).toBe('public, max-age=300')
    const body = (await response.json()) as { keys: { kid: string }[] }
    expect(body.keys.map((k) => k.kid)).toEqual([issuer.settings.publicJwk?.kid, publicJwkFromPem(rotatedPair.publicKey, 'RS256').kid])
  })

  it('a server with only the URL verifies tokens by kid (the retired key too), fetching the document once', async () => {
    const resourceServer = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: `${base}/jwks/`, allowInsecureJwkUrl: true }))
    const before = fetches
    const token = await issuer.encode(refreshPayloadFor(issuer, ana, now()))
    expect((await resourceServer.decode(token, 'refresh'))['user_id']).toBe(7)
    expect((await resourceServer.decode(token, 'refresh'))['user_id']).toBe(7)
    const retired = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', signingKey: rotatedPair.privateKey }))
    expect((await resourceServer.decode(await retired.encode(refreshPayloadFor(retired, ana, now())), 'refresh'))['user_id']).toBe(7)
    expect(fetches - before).toBe(1)
  })

  it('refuses a token without kid, with an unknown kid, or signed by another key under a known kid', async () => {
    const resourceServer = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: `${base}/jwks/`, allowInsecureJwkUrl: true }))
    const payload = JSON.stringify(refreshPayloadFor(issuer, ana, now()))
    const sign = (header: Record<string, string>, key: string): Promise<string> =>
      new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...header }).sign(createPrivateKey(key))
    const kid = issuer.settings.publicJwk?.kid ?? ''
    for (const token of [await sign({}, issuerPair.privateKey), await sign({ kid: 'unknown' }, issuerPair.privateKey), await sign({ kid }, rsa().privateKey)]) {
      await expect(resourceServer.decode(token, 'refresh')).rejects.toThrow('Token is invalid or expired')
    }
  })

  it('never throws anything but TokenError for any input, the kid included (property)', async () => {
    const resourceServer = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: `${base}/jwks/`, allowInsecureJwkUrl: true }))
    await onlyTokenErrors(resourceServer, await issuer.encode(refreshPayloadFor(issuer, ana, now())), 300)
  })

  it('an unreachable document: every token is "invalid or expired" (simplejwt\'s PyJWKClientError), never another error', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const resourceServer = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: `http://127.0.0.1:${port}/jwks/`, allowInsecureJwkUrl: true }))
    await expect(resourceServer.decode(await issuer.encode(refreshPayloadFor(issuer, ana, now())), 'refresh')).rejects.toThrow('Token is invalid or expired')
  })
})
