import type { KeyObject } from 'node:crypto'
import { ConfigurationError } from '../core/errors.js'
import { nativeCrypto } from '../crypto/native-crypto.js'

/** simplejwt 5.2.2's `ALLOWED_ALGORITHMS`. */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as const

/** An algorithm simplejwt signs with: HMAC (`HS*`), RSA PKCS#1 v1.5 (`RS*`) or ECDSA (`ES*`). */
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number]

/** The curve each ECDSA algorithm signs on (RFC 7518 §3.4), as Node names it. */
const EC_CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' }

/** A public key as a JWK, with the members a JWKS document serves. */
export interface PublicJwk {
  readonly kty: string
  readonly kid: string
  readonly alg: JwtAlgorithm
  readonly use: 'sig'
  readonly [member: string]: string
}

export function isAsymmetric(algorithm: JwtAlgorithm): boolean {
  return !algorithm.startsWith('HS')
}

function invalid(message: string): ConfigurationError {
  return new ConfigurationError('ERR_INVALID_SETTING', message)
}

/**
 * `node:crypto`, which reads PEM keys (PKCS#1, SEC1 and certificates as well as PKCS#8) at
 * start-up, synchronously. Runtimes without it (edge) keep the HMAC algorithms.
 */
function keyCrypto(algorithm: JwtAlgorithm): typeof import('node:crypto') {
  if (nativeCrypto === undefined) throw invalid(`JWT algorithm ${algorithm} needs node:crypto (Node, Bun, Deno, Workers with nodejs_compat); this runtime has the HS* algorithms only`)
  return nativeCrypto
}

/**
 * Checks that `key` can sign or verify `algorithm`: an RSA key of 2048 bits or more for
 * `RS*` (jose refuses shorter ones), a key on the algorithm's curve for `ES*`.
 */
function checkKeyFits(key: KeyObject, algorithm: JwtAlgorithm, setting: string): void {
  if (algorithm.startsWith('RS')) {
    if (key.asymmetricKeyType !== 'rsa') throw invalid(`JWT setting "${setting}" must be an RSA key for ${algorithm}`)
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw invalid(`JWT setting "${setting}" must be an RSA key of 2048 bits or more`)
    return
  }
  const curve = EC_CURVES[algorithm]
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== curve) {
    throw invalid(`JWT setting "${setting}" must be an EC key on ${curve ?? '?'} for ${algorithm}`)
  }
}

/**
 * simplejwt's `SIGNING_KEY` for `RS*`/`ES*`: a private key in PEM (PKCS#8, or the PKCS#1 /
 * SEC1 forms `openssl genrsa` and `openssl ecparam -genkey` write, as PyJWT's cryptography
 * reads them).
 */
export function privateKeyOf(pem: string, algorithm: JwtAlgorithm): KeyObject {
  let key: KeyObject
  try {
    key = keyCrypto(algorithm).createPrivateKey({ key: pem, format: 'pem' })
  } catch {
    throw invalid('JWT setting "signingKey" must be a private key in PEM for ' + algorithm)
  }
  checkKeyFits(key, algorithm, 'signingKey')
  return key
}

/** simplejwt's `VERIFYING_KEY`: a public key in PEM (SPKI or PKCS#1), or an X.509 certificate holding one. */
export function publicKeyOf(pem: string, algorithm: JwtAlgorithm): KeyObject {
  let key: KeyObject
  try {
    key = keyCrypto(algorithm).createPublicKey({ key: pem, format: 'pem' })
  } catch {
    throw invalid('JWT setting "verifyingKey" must be a public key in PEM for ' + algorithm)
  }
  // createPublicKey also takes a private key (and derives its public half): a verifying key must not be secret.
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) throw invalid('JWT setting "verifyingKey" must be a public key, not a private one')
  checkKeyFits(key, algorithm, 'verifyingKey')
  return key
}

export function publicHalf(privateKey: KeyObject, algorithm: JwtAlgorithm): KeyObject {
  return keyCrypto(algorithm).createPublicKey(privateKey)
}

export function sameKey(a: KeyObject, b: KeyObject): boolean {
  return a.equals(b)
}

/** The required members of each key type, in RFC 7638's (lexicographic) order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = { RSA: ['e', 'kty', 'n'], EC: ['crv', 'kty', 'x', 'y'] }

/**
 * `publicKey` as a JWK for a JWKS document: its members, `kid` (the RFC 7638 SHA-256
 * thumbprint, base64url: the same key always has the same id), `alg` and `use: "sig"`.
 */
export function publicJwkOf(publicKey: KeyObject, algorithm: JwtAlgorithm): PublicJwk {
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, string>
  const kty = jwk['kty'] ?? ''
  const members = THUMBPRINT_MEMBERS[kty] ?? []
  const canonical = `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(jwk[m] ?? '')}`).join(',')}}`
  const kid = keyCrypto(algorithm).createHash('sha256').update(canonical).digest('base64url')
  return Object.freeze({ ...jwk, kty, kid, alg: algorithm, use: 'sig' as const })
}

/**
 * The JWK of a public key in PEM, as `jwksView` serves it: for `retiredKeys`, the keys
 * being rotated out whose tokens must verify until they expire.
 *
 * @example
 * jwksView({ codec, retiredKeys: [publicJwkFromPem(previousPublicPem, 'RS256')] })
 */
export function publicJwkFromPem(pem: string, algorithm: JwtAlgorithm): PublicJwk {
  return publicJwkOf(publicKeyOf(pem, algorithm), algorithm)
}
