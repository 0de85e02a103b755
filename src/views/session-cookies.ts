import { serialize } from 'cookie'
import type { ApiRequest } from '../core/api-request.js'
import { resolveCsrfOptions, type CsrfOptions } from '../authentication/csrf.js'
import { randomBytes } from '../crypto/random.js'
import { deletedCookie } from '../core/deleted-cookie.js'

/** Cookie settings shared by the csrf, login and logout views (Django's defaults). */
export interface SessionCookieOptions {
  /** Session cookie name; use the same as `SessionAuthentication`'s. @default 'sessionid' */
  readonly cookieName?: string
  /** Session lifetime in seconds (Django `SESSION_COOKIE_AGE`, two weeks). @default 1209600 */
  readonly maxAge?: number
  /**
   * Mark both cookies `Secure`. `'auto'` does so when the request URL is https
   * (behind a TLS-terminating proxy, make the adapter see https or pass `true`).
   * @default 'auto'
   */
  readonly secure?: boolean | 'auto'
  /** Cookie `Domain`; unset means host-only cookies. */
  readonly domain?: string
  /** CSRF cookie, header and form field names; use the same as `SessionAuthentication`'s. */
  readonly csrf?: CsrfOptions
  /** CSRF cookie lifetime in seconds (Django `CSRF_COOKIE_AGE`, a year). @default 31449600 */
  readonly csrfMaxAge?: number
}

/** `SessionCookieOptions` with every default filled in. */
export interface ResolvedSessionCookies {
  readonly cookieName: string
  readonly maxAge: number
  readonly secure: boolean | 'auto'
  readonly domain: string | undefined
  readonly csrfCookieName: string
  readonly csrfMaxAge: number
  readonly csrf: CsrfOptions
}

export const SESSION_COOKIE_AGE = 1_209_600
export const CSRF_COOKIE_AGE = 31_449_600

function positiveSeconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer number of seconds`)
  return value
}

/** Fills in the defaults once, at view-creation time. */
export function resolveSessionCookies(options: SessionCookieOptions = {}): ResolvedSessionCookies {
  const csrf = resolveCsrfOptions(options.csrf)
  return Object.freeze({
    cookieName: options.cookieName ?? 'sessionid',
    maxAge: positiveSeconds(options.maxAge, SESSION_COOKIE_AGE, 'maxAge'),
    secure: options.secure ?? 'auto',
    domain: options.domain,
    csrfCookieName: csrf.cookieName,
    csrfMaxAge: positiveSeconds(options.csrfMaxAge, CSRF_COOKIE_AGE, 'csrfMaxAge'),
    csrf,
  })
}

function isSecure(req: ApiRequest, cookies: ResolvedSessionCookies): boolean {
  return cookies.secure === 'auto' ? req.url.protocol === 'https:' : cookies.secure
}

function header(
  name: string,
  value: string,
  maxAge: number,
  httpOnly: boolean,
  req: ApiRequest,
  cookies: ResolvedSessionCookies,
): readonly [string, string] {
  return [
    'Set-Cookie',
    serialize(name, value, {
      maxAge,
      // Expires as well as Max-Age, as Django sends, for clients that ignore Max-Age.
      expires: new Date(maxAge === 0 ? 0 : Date.now() + maxAge * 1000),
      path: '/',
      httpOnly,
      secure: isSecure(req, cookies),
      sameSite: 'lax',
      ...(cookies.domain === undefined ? {} : { domain: cookies.domain }),
    }),
  ]
}

/** `Set-Cookie` for the CSRF secret: readable by scripts (not HttpOnly), SameSite=Lax, a year. */
export function csrfCookieHeader(secret: string, req: ApiRequest, cookies: ResolvedSessionCookies): readonly [string, string] {
  return header(cookies.csrfCookieName, secret, cookies.csrfMaxAge, false, req, cookies)
}

/** `Set-Cookie` for a session key: HttpOnly, SameSite=Lax, two weeks by default. */
export function sessionCookieHeader(key: string, req: ApiRequest, cookies: ResolvedSessionCookies): readonly [string, string] {
  return header(cookies.cookieName, key, cookies.maxAge, true, req, cookies)
}

/**
 * `Set-Cookie` that makes the browser drop the session cookie, as Django's `delete_cookie`
 * writes it (`sessionid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/;
 * SameSite=Lax`, with the configured `Domain`).
 */
export function expiredSessionCookieHeader(_req: ApiRequest, cookies: ResolvedSessionCookies): readonly [string, string] {
  return ['Set-Cookie', deletedCookie(cookies.cookieName, cookies.domain === undefined ? {} : { domain: cookies.domain })]
}

const KEY_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A new session key: 32 characters over `[a-z0-9]` (Django's format) from the CSPRNG, about 165 bits. */
export function newSessionKey(): string {
  let key = ''
  while (key.length < 32) {
    for (const byte of randomBytes(48)) {
      // 252 = 7 * 36: rejecting the rest keeps every character equally likely.
      if (byte < 252 && key.length < 32) key += KEY_CHARS[byte % 36]
    }
  }
  return key
}
