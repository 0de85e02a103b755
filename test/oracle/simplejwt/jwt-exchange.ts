import { randomBytes } from 'node:crypto'
import { CompactSign } from 'jose'
import { comparable, type ExchangeRequest, type ExchangeResult } from '../http-exchange.js'
import { JWT_ORACLE_KEY } from './simplejwt-oracle.js'

/** Seconds since the epoch, whole. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000)

const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url')

/** A new simplejwt-style `jti` (32 hex digits), random per run so runs sharing one Django never collide. */
export const newJti = (): string => randomBytes(16).toString('hex')

/**
 * Signs `claims` (in their order; or a payload's JSON text as is, for numbers such as `2.0`
 * that JSON.stringify cannot write) with HS256 and the shared key, or as told. `alg: 'none'`
 * gives an unsigned token.
 */
export async function signed(claims: Readonly<Record<string, unknown>> | string, { key = JWT_ORACLE_KEY, alg = 'HS256' }: { key?: string; alg?: string } = {}): Promise<string> {
  const payload = typeof claims === 'string' ? claims : JSON.stringify(claims)
  if (alg === 'none') return `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(payload)}.`
  return new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(key))
}

/** simplejwt's claims for a token of `type` for `userId`, now, with `over` replacing or adding claims (`undefined` removes one). */
export function claimsFor(type: 'access' | 'refresh', userId: unknown, over: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const now = nowSeconds()
  const base: Record<string, unknown> = { token_type: type, exp: now + (type === 'access' ? 300 : 86_400), iat: now, jti: newJti(), user_id: userId, ...over }
  for (const [claim, value] of Object.entries(base)) if (value === undefined) delete base[claim]
  return base
}

/** The token with one character of its signature changed (never the last, whose low bits base64url may ignore). */
export function tampered(token: string): string {
  const at = token.lastIndexOf('.') + 3
  const c = token[at] === 'A' ? 'B' : 'A'
  return `${token.slice(0, at)}${c}${token.slice(at + 1)}`
}

/** The claims of a compact JWT, unverified, or `null` when it is not one. */
export function peekClaims(token: unknown): Record<string, unknown> | null {
  if (typeof token !== 'string') return null
  const parts = token.split('.')
  if (parts.length !== 3) return null
  try {
    const claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as unknown
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null
  } catch {
    return null
  }
}

const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

/**
 * A time claim relative to now: `now` (within a minute), the request token's `iat` (an older
 * one, which a refreshed token copies), or `now±N min` (whole minutes, so a second's skew
 * between the servers never shows).
 */
function relative(seconds: unknown, inputIats: ReadonlySet<number>): unknown {
  if (typeof seconds !== 'number') return seconds
  const minutes = Math.round((seconds - nowSeconds()) / 60)
  if (minutes === 0) return 'now'
  if (inputIats.has(seconds)) return "the request token's iat"
  return `now${minutes > 0 ? '+' : ''}${minutes}min`
}

/**
 * A token a server minted, as what two servers must agree on: its header, its claims in order,
 * `jti` as its shape, `iat` and `exp` relative to now (or as the request token's `iat`, which a
 * refreshed access token keeps), every other claim as is.
 */
function describeJwt(token: string, inputIats: ReadonlySet<number>): unknown {
  const [header = ''] = token.split('.')
  const claims = peekClaims(token)
  if (claims === null) return token
  const shown: Record<string, unknown> = {}
  for (const [claim, value] of Object.entries(claims)) {
    if (claim === 'jti') shown[claim] = typeof value === 'string' && /^[0-9a-f]{32}$/.test(value) ? '<32 hex>' : value
    else if (claim === 'iat' || claim === 'exp') shown[claim] = relative(value, inputIats)
    else shown[claim] = value
  }
  return { jwtHeader: Buffer.from(header, 'base64url').toString('utf8'), claims: shown }
}

/** `iat` of every token in a request body (JSON or form), which a refreshed access token copies. */
function requestIats(request: ExchangeRequest): Set<number> {
  const iats = new Set<number>()
  for (const piece of (request.body ?? '').split(/["&=\s]+/)) {
    const iat = peekClaims(decodeURIComponent(piece.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')))?.['iat']
    if (typeof iat === 'number') iats.add(iat)
  }
  return iats
}

/** JSON with every minted token replaced by `describeJwt`. */
function maskTokens(value: unknown, inputIats: ReadonlySet<number>): unknown {
  if (typeof value === 'string') return COMPACT_JWT.test(value) ? describeJwt(value, inputIats) : value
  if (Array.isArray(value)) return value.map((v) => maskTokens(v, inputIats))
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskTokens(v, inputIats)]))
  return value
}

/**
 * What gatehouse and simplejwt must agree on: `comparable` (status, DRF headers, body, OPTIONS
 * `actions` included), with minted tokens described, and one known difference left out by name:
 * - `HTML page without csrftoken`: DRF's browsable page sets the CSRF cookie and so varies on
 *   Cookie; gatehouse's page has no form (README, as test/oracle/generated-oracle.test.ts masks it).
 */
export function comparableJwt(result: ExchangeResult, request: ExchangeRequest): Record<string, unknown> {
  const body = maskTokens(result.body, requestIats(request))
  const shown = comparable({ ...result, body }, request)
  const html = (result.headers['content-type'] ?? '').startsWith('text/html')
  return html ? { ...shown, 'vary-cookie': '<HTML page without csrftoken>' } : shown
}

/** A JSON POST. */
export function postJson(name: string, path: string, body: unknown): ExchangeRequest {
  return { name, method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
}

/** `GET /api/schemes/jwt/` with this `Authorization` header (none when `undefined`). */
export function whoami(name: string, authorization: string | undefined): ExchangeRequest {
  return { name, method: 'GET', path: '/api/schemes/jwt/', headers: authorization === undefined ? {} : { Authorization: authorization } }
}
