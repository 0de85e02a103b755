import { describe, expect, it } from 'vitest'
import { buildRequest, type BuildRequestOptions } from '../../test/helpers/build-request.js'
import { FakeSessionStore, FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { PermissionDenied, UnsupportedMediaType } from '../core/errors.js'
import {
  CSRF_SAFE_METHODS,
  csrfSecretOf,
  maskCsrfSecret,
  newCsrfSecret,
  unmaskCsrfToken,
  type CsrfOptions,
} from './csrf.js'
import { SessionAuthentication } from './session-authentication.js'

describe('CSRF token masking (Django _mask_cipher_secret / _unmask_cipher_token)', () => {
  // Made with Debian's Django 3.2 (mask fixed by patching get_random_string).
  const SECRET = 'abcdefghijklmnopqrstuvwxyzABCDEF'
  const DJANGO_TOKEN = 'ZYXWVUTSRQPONMLKJIHGFEDCBA987654ZZZZZZZZZZZZZZZZZZZZZZZZZZzzzzzz'

  it('unmasks a token masked by Django', () => {
    expect(unmaskCsrfToken(DJANGO_TOKEN)).toBe(SECRET)
    expect(unmaskCsrfToken(`0123456789abcdefghijABCDEFGHIJxy${'Q'.repeat(32)}`)).toBe('0ZYXWVUTSRQPONMLKJIHqponmlkjihts')
  })

  it('masks to 64 alphanumerics that unmask to the secret, differently every time', () => {
    const secret = newCsrfSecret()
    expect(secret).toMatch(/^[a-zA-Z0-9]{32}$/)
    const a = maskCsrfSecret(secret)
    const b = maskCsrfSecret(secret)
    expect(a).toMatch(/^[a-zA-Z0-9]{64}$/)
    expect(a).not.toBe(b)
    expect(unmaskCsrfToken(a)).toBe(secret)
    expect(unmaskCsrfToken(b)).toBe(secret)
  })

  it.each([
    [null, null],
    ['', null],
    ['a'.repeat(31), null],
    ['a'.repeat(33), null],
    ['a'.repeat(63), null],
    ['a'.repeat(65), null],
    [`${'a'.repeat(31)}-`, null],
    [`${'a'.repeat(63)}é`, null],
    [SECRET, SECRET],
    [DJANGO_TOKEN, SECRET],
  ])('csrfSecretOf(%j) → %j', (value, secret) => {
    expect(csrfSecretOf(value)).toBe(secret)
  })

  it('safe methods are DRF/Django ones', () => {
    expect([...CSRF_SAFE_METHODS].sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'TRACE'])
  })
})

const SECRET = 'Zb1Zb1Zb1Zb1Zb1Zb1Zb1Zb1Zb1Zb1Zb'
const HOUR = 3_600_000

function sessionScheme(csrf?: CsrfOptions): SessionAuthentication {
  const sessions = new FakeSessionStore()
  const expiresAt = new Date(Date.now() + HOUR)
  sessions.sessions.set('s-alice', { userId: 1, data: {}, expiresAt })
  sessions.sessions.set('s-carol', { userId: 3, data: {}, expiresAt })
  sessions.sessions.set('s-anon', { userId: null, data: {}, expiresAt })
  sessions.sessions.set('s-gone', { userId: 77, data: {}, expiresAt })
  sessions.sessions.set('s-expired', { userId: 1, data: {}, expiresAt: new Date(Date.now() - 1) })
  return new SessionAuthentication({ sessions, users: new FakeUserStore(), ...(csrf === undefined ? {} : { csrf }) })
}

interface Case {
  readonly method?: string
  readonly url?: string
  readonly session?: string
  readonly cookie?: string | null
  readonly header?: string
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly contentType?: string
}

/** `'ok'`, `null` (not attempted) or the 403 detail. */
async function attempt(c: Case, csrf?: CsrfOptions): Promise<string | null> {
  const headers: Record<string, string> = { ...c.headers }
  const cookies = [`sessionid=${c.session ?? 's-alice'}`]
  if (c.cookie !== null) cookies.push(`csrftoken=${c.cookie ?? SECRET}`)
  headers['Cookie'] = cookies.join('; ')
  if (c.header !== undefined) headers['X-CSRFToken'] = c.header
  if (c.contentType !== undefined) headers['Content-Type'] = c.contentType
  const options: BuildRequestOptions = {
    method: c.method ?? 'POST',
    url: c.url ?? 'http://testserver/api/x/',
    headers,
    ...(c.body === undefined ? {} : { body: c.body }),
  }
  try {
    const result = await sessionScheme(csrf).authenticate(buildRequest(options))
    return result === null ? null : result.user.username === 'alice' ? 'ok' : `user ${result.user.username}`
  } catch (error) {
    if (error instanceof PermissionDenied) return error.detail as string
    throw error
  }
}

const F = (reason: string): string => `CSRF Failed: ${reason}`

describe('SessionAuthentication: who is attempted', () => {
  it.each([
    ['unknown session key', { session: 'nope', cookie: null }],
    ['anonymous session', { session: 's-anon', cookie: null }],
    ['inactive user', { session: 's-carol', cookie: null }],
    ['deleted user', { session: 's-gone', cookie: null }],
    ['expired session', { session: 's-expired', cookie: null }],
  ])('%s → not attempted, no CSRF check even for POST', async (_name, c) => {
    expect(await attempt({ ...c, method: 'POST' })).toBeNull()
  })

  it('no cookie, an empty or a malformed Cookie header is not attempted', async () => {
    for (const headers of [{}, { Cookie: 'sessionid=' }, { Cookie: '=;;;sessionid' }, { Cookie: 'sessionid=%00' }]) {
      expect(await sessionScheme().authenticate(buildRequest({ method: 'POST', headers }))).toBeNull()
    }
  })

  it('active session user: auth is null', async () => {
    const req = buildRequest({ headers: { Cookie: 'sessionid=s-alice' } })
    const result = await sessionScheme().authenticate(req)
    expect(result?.user.username).toBe('alice')
    expect(result?.auth).toBeNull()
  })

  it('has no challenge (403 when first)', () => {
    expect((sessionScheme() as { authenticateHeader?: unknown }).authenticateHeader).toBeUndefined()
  })
})

describe('SessionAuthentication: CSRF (drf-behaviors §5.5, Django 3.2 reasons + Origin check)', () => {
  it.each<[string, Case, string]>([
    ['safe GET needs nothing', { method: 'GET', cookie: null }, 'ok'],
    ['safe HEAD', { method: 'HEAD', cookie: null }, 'ok'],
    ['safe OPTIONS', { method: 'OPTIONS', cookie: null }, 'ok'],
    ['safe TRACE', { method: 'TRACE', cookie: null }, 'ok'],
    ['POST without cookie', { cookie: null }, F('CSRF cookie not set.')],
    ['PUT without cookie', { method: 'PUT', cookie: null }, F('CSRF cookie not set.')],
    ['POST without token', {}, F('CSRF token missing or incorrect.')],
    ['DELETE without token', { method: 'DELETE' }, F('CSRF token missing or incorrect.')],
    ['PATCH with token', { method: 'PATCH', header: SECRET }, 'ok'],
    ['header = 32-char secret', { header: SECRET }, 'ok'],
    ['header = masked secret', { header: maskCsrfSecret(SECRET) }, 'ok'],
    ['cookie masked, header masked differently', { cookie: maskCsrfSecret(SECRET), header: maskCsrfSecret(SECRET) }, 'ok'],
    ['cookie masked, header = secret', { cookie: maskCsrfSecret(SECRET), header: SECRET }, 'ok'],
    ['wrong header', { header: 'a'.repeat(32) }, F('CSRF token missing or incorrect.')],
    ['wrong masked header', { header: maskCsrfSecret('a'.repeat(32)) }, F('CSRF token missing or incorrect.')],
    ['header of bad length', { header: SECRET.slice(1) }, F('CSRF token missing or incorrect.')],
    ['header with bad characters', { header: `${SECRET.slice(1)}!` }, F('CSRF token missing or incorrect.')],
    ['cookie of bad length', { cookie: 'abc', header: 'abc' }, F('CSRF token missing or incorrect.')],
    ['cookie with bad characters', { cookie: `${SECRET.slice(1)}-`, header: `${SECRET.slice(1)}-` }, F('CSRF token missing or incorrect.')],
    ['empty cookie is "incorrect", not "not set"', { cookie: '', header: '' }, F('CSRF token missing or incorrect.')],
    // Origin check (Django >= 4.0, a deliberate hardening over 3.2), before the cookie checks.
    ['Origin of another site', { cookie: null, headers: { Origin: 'http://evil.com' } }, F('Origin checking failed - http://evil.com does not match any trusted origins.')],
    ['Origin null', { header: SECRET, headers: { Origin: 'null' } }, F('Origin checking failed - null does not match any trusted origins.')],
    ['Origin with another scheme', { header: SECRET, headers: { Origin: 'https://testserver' } }, F('Origin checking failed - https://testserver does not match any trusted origins.')],
    ['Origin with another port', { header: SECRET, headers: { Origin: 'http://testserver:8080' } }, F('Origin checking failed - http://testserver:8080 does not match any trusted origins.')],
    ['Origin of this site', { header: SECRET, headers: { Origin: 'http://testserver' } }, 'ok'],
    ['Origin of this site, then cookie checks', { cookie: null, headers: { Origin: 'http://testserver' } }, F('CSRF cookie not set.')],
    // https: Referer rules when no Origin is sent.
    ['https, no Referer', { url: 'https://testserver/api/x/', header: SECRET }, F('Referer checking failed - no Referer.')],
    ['https, no Referer, before cookie checks', { url: 'https://testserver/api/x/', cookie: null }, F('Referer checking failed - no Referer.')],
    ['https, Referer not a URL', { url: 'https://testserver/api/x/', header: SECRET, headers: { Referer: 'not a url' } }, F('Referer checking failed - Referer is malformed.')],
    ['https, Referer without netloc', { url: 'https://testserver/api/x/', header: SECRET, headers: { Referer: 'https:testserver/x' } }, F('Referer checking failed - Referer is malformed.')],
    ['https, Referer mailto', { url: 'https://testserver/api/x/', header: SECRET, headers: { Referer: 'mailto:a@testserver' } }, F('Referer checking failed - Referer is malformed.')],
    ['https, http Referer', { url: 'https://testserver/api/x/', header: SECRET, headers: { Referer: 'http://testserver/x' } }, F('Referer checking failed - Referer is insecure while host is secure.')],
    ['https, Referer of another site', { url: 'https://testserver/api/x/', header: SECRET, headers: { Referer: 'https://evil.com/' } }, F('Referer checking failed - https://evil.com/ does not match any trusted origins.')],
    ['https, same-origin Referer', { url: 'https://testserver/api/x/', header: SECRET, headers: { Referer: 'https://testserver/x' } }, 'ok'],
    ['https, same-origin Referer, then cookie checks', { url: 'https://testserver/api/x/', cookie: null, headers: { Referer: 'https://testserver/x' } }, F('CSRF cookie not set.')],
    ['https with a same-site Origin skips the Referer check', { url: 'https://testserver/api/x/', header: SECRET, headers: { Origin: 'https://testserver' } }, 'ok'],
    ['http ignores the Referer', { header: SECRET, headers: { Referer: 'https://evil.com/' } }, 'ok'],
  ])('%s', async (_name, c, expected) => {
    expect(await attempt(c)).toBe(expected)
  })

  it('trusted origins: exact and wildcard, for Origin and Referer', async () => {
    const csrf = { trustedOrigins: ['https://app.example.com', 'https://*.trusted.org'] }
    const https = 'https://testserver/api/x/'
    expect(await attempt({ header: SECRET, headers: { Origin: 'https://app.example.com' } }, csrf)).toBe('ok')
    expect(await attempt({ header: SECRET, headers: { Origin: 'https://a.b.trusted.org' } }, csrf)).toBe('ok')
    expect(await attempt({ header: SECRET, headers: { Origin: 'https://trusted.org' } }, csrf)).toBe('ok')
    expect(await attempt({ header: SECRET, headers: { Origin: 'http://a.trusted.org' } }, csrf)).toBe(
      F('Origin checking failed - http://a.trusted.org does not match any trusted origins.'),
    )
    expect(await attempt({ header: SECRET, headers: { Origin: 'https://eviltrusted.org' } }, csrf)).toBe(
      F('Origin checking failed - https://eviltrusted.org does not match any trusted origins.'),
    )
    expect(await attempt({ url: https, header: SECRET, headers: { Referer: 'https://x.trusted.org/page' } }, csrf)).toBe('ok')
    expect(await attempt({ url: https, header: SECRET, headers: { Referer: 'https://app.example.com/p' } }, csrf)).toBe('ok')
  })

  it('form field csrfmiddlewaretoken counts for form POSTs, before the header', async () => {
    const form = 'application/x-www-form-urlencoded'
    expect(await attempt({ contentType: form, body: `csrfmiddlewaretoken=${SECRET}&a=1` })).toBe('ok')
    expect(await attempt({ contentType: form, body: `csrfmiddlewaretoken=${'a'.repeat(32)}`, header: SECRET })).toBe(
      F('CSRF token missing or incorrect.'),
    )
    // An empty field falls back to the header.
    expect(await attempt({ contentType: form, body: 'csrfmiddlewaretoken=&a=1', header: SECRET })).toBe('ok')
    const boundary = 'XyZ'
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n${SECRET}\r\n--${boundary}--\r\n`
    expect(await attempt({ contentType: `multipart/form-data; boundary=${boundary}`, body: multipart })).toBe('ok')
  })

  it('a JSON body field is not a form field (DRF request.POST is empty for JSON)', async () => {
    const body = JSON.stringify({ csrfmiddlewaretoken: SECRET })
    expect(await attempt({ contentType: 'application/json', body })).toBe(F('CSRF token missing or incorrect.'))
    expect(await attempt({ contentType: 'application/json', body, header: SECRET })).toBe('ok')
  })

  it('a PUT form field does not count (Django reads it for POST only)', async () => {
    const body = `csrfmiddlewaretoken=${SECRET}`
    expect(await attempt({ method: 'PUT', contentType: 'application/x-www-form-urlencoded', body })).toBe(
      F('CSRF token missing or incorrect.'),
    )
  })

  it('parses the POST body during the check: an unsupported media type is a 415 from authentication (§5.7)', async () => {
    await expect(attempt({ contentType: 'text/plain', body: 'hello', header: SECRET })).rejects.toBeInstanceOf(UnsupportedMediaType)
  })

  it('custom cookie, header and session cookie names', async () => {
    const sessions = new FakeSessionStore()
    sessions.sessions.set('k', { userId: 1, data: {}, expiresAt: new Date(Date.now() + HOUR) })
    const scheme = new SessionAuthentication({
      sessions,
      users: new FakeUserStore(),
      cookieName: 'sid',
      csrf: { cookieName: 'xsrf', headerName: 'X-XSRF-Token' },
    })
    const ok = buildRequest({ method: 'POST', headers: { Cookie: `sid=k; xsrf=${SECRET}`, 'X-XSRF-Token': SECRET } })
    expect((await scheme.authenticate(ok))?.user.username).toBe('alice')
    const wrongHeader = buildRequest({ method: 'POST', headers: { Cookie: `sid=k; xsrf=${SECRET}`, 'X-CSRFToken': SECRET } })
    await expect(scheme.authenticate(wrongHeader)).rejects.toMatchObject({ detail: F('CSRF token missing or incorrect.') })
    const defaultCookie = buildRequest({ method: 'POST', headers: { Cookie: `sessionid=k; csrftoken=${SECRET}` } })
    expect(await scheme.authenticate(defaultCookie)).toBeNull()
  })

  it('a CSRF failure is PermissionDenied (always 403, never 401)', async () => {
    const req = buildRequest({ method: 'POST', headers: { Cookie: 'sessionid=s-alice' } })
    const error = await sessionScheme().authenticate(req).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PermissionDenied)
    expect((error as PermissionDenied).status).toBe(403)
  })
})
