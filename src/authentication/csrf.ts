import type { ApiRequest } from '../core/api-request.js'
import { PermissionDenied } from '../core/errors.js'
import { randomAlphanumeric } from '../crypto/random.js'
import { timingSafeEqual } from '../crypto/timing-safe-equal.js'

/** Django's CSRF alphabet, in Django's order (ascii_letters + digits). */
const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
export const CSRF_SECRET_LENGTH = 32
export const CSRF_TOKEN_LENGTH = 64
const VALID = /^[a-zA-Z0-9]+$/

/** Options for the CSRF rule; the defaults are Django's. */
export interface CsrfOptions {
  /** @default 'csrftoken' */
  readonly cookieName?: string
  /** Request header carrying the token. @default 'X-CSRFToken' */
  readonly headerName?: string
  /** Form field carrying the token (POST forms). @default 'csrfmiddlewaretoken' */
  readonly formField?: string
  /** Extra origins allowed for unsafe requests, e.g. `https://app.example.com` or `https://*.example.com`. @default [] */
  readonly trustedOrigins?: readonly string[]
}

export type ResolvedCsrfOptions = Required<CsrfOptions>

export function resolveCsrfOptions(options: CsrfOptions = {}): ResolvedCsrfOptions {
  return Object.freeze({
    cookieName: options.cookieName ?? 'csrftoken',
    headerName: options.headerName ?? 'X-CSRFToken',
    formField: options.formField ?? 'csrfmiddlewaretoken',
    trustedOrigins: Object.freeze([...(options.trustedOrigins ?? [])]),
  })
}

/** A new 32-character secret (what the `csrftoken` cookie holds, as in Django >= 4.1). */
export function newCsrfSecret(): string {
  return randomAlphanumeric(CSRF_SECRET_LENGTH)
}

/** Masks a secret as a 64-character token (Django's `_mask_cipher_secret`): a fresh value per call, BREACH-safe. */
export function maskCsrfSecret(secret: string): string {
  const mask = randomAlphanumeric(CSRF_SECRET_LENGTH)
  let cipher = ''
  for (let i = 0; i < CSRF_SECRET_LENGTH; i++) {
    cipher += CHARS[(CHARS.indexOf(secret[i] ?? 'a') + CHARS.indexOf(mask[i] ?? 'a')) % CHARS.length]
  }
  return mask + cipher
}

/** Recovers the secret from a 64-character masked token. */
export function unmaskCsrfToken(token: string): string {
  const mask = token.slice(0, CSRF_SECRET_LENGTH)
  const cipher = token.slice(CSRF_SECRET_LENGTH)
  let secret = ''
  for (let i = 0; i < CSRF_SECRET_LENGTH; i++) {
    const index = CHARS.indexOf(cipher[i] ?? 'a') - CHARS.indexOf(mask[i] ?? 'a')
    secret += CHARS[(index + CHARS.length) % CHARS.length]
  }
  return secret
}

/** The secret inside a cookie or submitted token (32 = secret, 64 = masked), or `null` when malformed. */
export function csrfSecretOf(value: string | null): string | null {
  if (value === null || !VALID.test(value)) return null
  if (value.length === CSRF_SECRET_LENGTH) return value
  if (value.length === CSRF_TOKEN_LENGTH) return unmaskCsrfToken(value)
  return null
}

function originMatches(origin: string, allowed: string): boolean {
  if (!allowed.includes('*')) return origin === allowed
  // Django's wildcard form: https://*.example.com matches any subdomain.
  const [scheme, host] = allowed.split('://')
  if (scheme === undefined || host === undefined || !host.startsWith('*.')) return false
  // Django's is_same_domain: `.example.com` matches subdomains and example.com itself.
  const rest = origin.slice(scheme.length + 3)
  const domain = host.slice(1).toLowerCase()
  return origin.startsWith(`${scheme}://`) && (rest.endsWith(domain) || rest === domain.slice(1))
}

function isFormMediaType(contentType: string | null): boolean {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase()
  return mediaType === 'application/x-www-form-urlencoded' || mediaType === 'multipart/form-data'
}

function fail(reason: string): never {
  throw new PermissionDenied(`CSRF Failed: ${reason}`)
}

/**
 * Django's CSRF check for one unsafe request, with DRF 3.14 / Django 3.2's reasons:
 * Origin (when sent) must be this host or a trusted origin; on https without Origin
 * the Referer must be same-origin; the `csrftoken` cookie must exist; the
 * `X-CSRFToken` header (or form field) must carry the same secret (masked or not),
 * compared in constant time. Throws `PermissionDenied("CSRF Failed: …")` (403).
 */
export async function enforceCsrf(req: ApiRequest, options: ResolvedCsrfOptions): Promise<void> {
  const ownOrigin = `${req.url.protocol}//${req.url.host}`
  const origin = req.headers.get('origin')
  if (origin !== null && origin !== '') {
    if (origin !== ownOrigin && !options.trustedOrigins.some((o) => originMatches(origin, o))) {
      fail(`Origin checking failed - ${origin} does not match any trusted origins.`)
    }
  } else if (req.url.protocol === 'https:') {
    const referer = req.headers.get('referer')
    if (referer === null || referer === '') fail('Referer checking failed - no Referer.')
    let parsed: URL
    try {
      // Python's urlparse needs `scheme://netloc`; WHATWG URL would also accept `https:host`.
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(referer)) throw new TypeError('no netloc')
      parsed = new URL(referer)
    } catch {
      return fail('Referer checking failed - Referer is malformed.')
    }
    if (parsed.host === '') fail('Referer checking failed - Referer is malformed.')
    if (parsed.protocol !== 'https:') fail('Referer checking failed - Referer is insecure while host is secure.')
    const refererOrigin = `${parsed.protocol}//${parsed.host}`
    if (refererOrigin !== ownOrigin && !options.trustedOrigins.some((o) => originMatches(refererOrigin, o))) {
      fail(`Referer checking failed - ${referer} does not match any trusted origins.`)
    }
  }
  const cookie = req.cookie(options.cookieName)
  if (cookie === null) fail('CSRF cookie not set.')
  const cookieSecret = csrfSecretOf(cookie)
  let submitted: string | null = null
  if (req.method === 'POST') {
    // Parsed for every POST, as Django's `request.POST` makes DRF parse it: a malformed
    // body fails here (400/415). The field counts only in form bodies (DRF's
    // `request.POST` is empty for JSON), so a JSON `csrfmiddlewaretoken` is ignored.
    const data = await req.body()
    if (isFormMediaType(req.headers.get('content-type')) && typeof data === 'object' && data !== null) {
      const field = (data as Record<string, unknown>)[options.formField]
      if (typeof field === 'string' && field !== '') submitted = field
    }
  }
  submitted ??= req.headers.get(options.headerName)
  const submittedSecret = csrfSecretOf(submitted)
  if (cookieSecret === null || submittedSecret === null || !timingSafeEqual(cookieSecret, submittedSecret)) {
    fail('CSRF token missing or incorrect.')
  }
}

/** Methods that never need a CSRF token. */
export const CSRF_SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS', 'TRACE']
