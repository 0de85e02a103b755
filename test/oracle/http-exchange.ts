import { request as httpRequest } from 'node:http'

/** One request to send to both servers. Header values may hold Latin-1 characters (sent as raw bytes). */
export interface ExchangeRequest {
  /** Unique, human-readable: shown when the servers disagree. */
  readonly name: string
  readonly method: string
  /** Path and query, e.g. `/api/whoami/?x=1`. */
  readonly path: string
  /**
   * The request target sent on the request line instead of `path`, as it is (`//host/x`, an
   * absolute-form `http://host/x`): what a URL would resolve to another host. @default path
   */
  readonly target?: string
  readonly headers?: Readonly<Record<string, string>>
  /** Raw body; set `Content-Type` in `headers`. */
  readonly body?: string
  /** How `body` becomes bytes: `latin1` sends each character as one byte (invalid UTF-8 on purpose). @default 'utf8' */
  readonly bodyEncoding?: 'utf8' | 'latin1'
  /**
   * Log in as this user (password from the seed) before sending, and send the
   * session and CSRF cookies. `csrf` adds a matching `X-CSRFToken` header.
   * `cookie` replaces the Cookie header: `{sessionid}` and `{csrftoken}` are filled in.
   */
  readonly session?: { readonly username: string; readonly csrf: boolean; readonly cookie?: string }
  /** Compare the status only (Django answers non-API paths with its own HTML pages). */
  readonly statusOnly?: boolean
}

/** What a server answered, reduced to what is compared. */
export interface ExchangeResult {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Parsed JSON when the response is JSON, else the raw text. */
  readonly body: unknown
  readonly text: string
}

/** Sends one request with `node:http` (unlike fetch, it sends Latin-1 header bytes as they are). */
export function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>> = {},
  body?: string | Buffer,
  target?: string,
): Promise<ExchangeResult> {
  const url = new URL(target === undefined ? path : '/', baseUrl)
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: target ?? `${url.pathname}${url.search}`,
        headers: { Connection: 'close', ...headers, ...(payload === undefined ? {} : { 'Content-Length': String(payload.length) }) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const out: Record<string, string> = {}
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) out[k] = Array.isArray(v) ? v.join('\n') : v
          }
          let parsed: unknown = text
          if ((out['content-type'] ?? '').startsWith('application/json') && text !== '') {
            try {
              parsed = JSON.parse(text)
            } catch {
              parsed = text
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: out, body: parsed, text })
        })
      },
    )
    req.on('error', reject)
    if (payload !== undefined) req.write(payload)
    req.end()
  })
}

/** The value of cookie `name` in a response's `Set-Cookie` headers, or `null`. */
export function setCookieValue(result: ExchangeResult, name: string): string | null {
  for (const line of (result.headers['set-cookie'] ?? '').split('\n')) {
    const match = new RegExp(`^\\s*${name}=([^;]*)`).exec(line)
    if (match !== null) return match[1] ?? ''
  }
  return null
}

/** The seed's passwords (reference-api.md), for logging in. */
export const SEED_PASSWORDS: Readonly<Record<string, string>> = {
  alice: 'alice-pass-1',
  bob: 'bob-pass-2',
  carol: 'carol-pass-3',
  admin: 'admin-pass-4',
}

/** Session and CSRF cookies of a logged-in user. */
export interface SessionCookies {
  readonly sessionid: string
  readonly csrftoken: string
}

/**
 * Logs `username` in through `/api/auth/csrf/` and `/api/auth/login/` (the
 * reference API's session routes). `null` when the server has no such routes or
 * the login fails.
 */
export async function login(baseUrl: string, username: string): Promise<SessionCookies | null> {
  const csrfResponse = await send(baseUrl, 'GET', '/api/auth/csrf/')
  const csrf = setCookieValue(csrfResponse, 'csrftoken')
  if (csrfResponse.status !== 200 || csrf === null) return null
  const response = await send(
    baseUrl,
    'POST',
    '/api/auth/login/',
    { 'Content-Type': 'application/json', Cookie: `csrftoken=${csrf}`, 'X-CSRFToken': csrf },
    JSON.stringify({ username, password: SEED_PASSWORDS[username] ?? '' }),
  )
  const sessionid = setCookieValue(response, 'sessionid')
  if (response.status !== 200 || sessionid === null) return null
  return { sessionid, csrftoken: setCookieValue(response, 'csrftoken') ?? csrf }
}

/** Sends an `ExchangeRequest`, logging in first when it needs a session (cached per server and user). */
export async function exchange(
  baseUrl: string,
  request: ExchangeRequest,
  sessions: Map<string, SessionCookies | null>,
): Promise<ExchangeResult> {
  const headers: Record<string, string> = { ...request.headers }
  if (request.session !== undefined) {
    const key = `${baseUrl} ${request.session.username}`
    if (!sessions.has(key)) sessions.set(key, await login(baseUrl, request.session.username))
    const cookies = sessions.get(key)
    if (cookies === null || cookies === undefined) throw new Error(`cannot log in as ${request.session.username} on ${baseUrl}`)
    const template = request.session.cookie ?? 'sessionid={sessionid}; csrftoken={csrftoken}'
    headers['Cookie'] = template.replaceAll('{sessionid}', cookies.sessionid).replaceAll('{csrftoken}', cookies.csrftoken)
    if (request.session.csrf) headers['X-CSRFToken'] = cookies.csrftoken
  }
  const body = request.body === undefined ? undefined : Buffer.from(request.body, request.bodyEncoding ?? 'utf8')
  return send(baseUrl, request.method, request.path, headers, body, request.target)
}

const TOKEN_KEY = /\b[0-9a-f]{40}\b/g
/** The servers' own origins in links (each listens on its own port). */
const LOOPBACK_ORIGIN = /http:\/\/127\.0\.0\.1:\d+/g
const SEED_KEYS = new Set(['b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'])

/**
 * Replaces values that legitimately differ between two servers: generated token
 * keys (the seed's fixed keys stay), CSRF tokens and user ids of users created
 * during the run are kept (both servers create them in the same order).
 */
export function maskBody(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(TOKEN_KEY, (key) => (SEED_KEYS.has(key) ? key : '<token>')).replace(LOOPBACK_ORIGIN, 'http://<server>')
  if (Array.isArray(value)) return value.map(maskBody)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = k === 'csrfToken' && typeof v === 'string' ? '<csrf>' : maskBody(v)
    return out
  }
  return value
}

/**
 * The `Set-Cookie` lines: a deletion (`Max-Age=0`) byte for byte, as Django writes it; a cookie
 * that is set by its name only (values and expiry dates differ between any two servers).
 */
function setCookies(result: ExchangeResult): string[] {
  // Known difference, left out by name: DRF's browsable page renders a CSRF token into the
  // page, which sets the csrftoken cookie; gatehouse's page carries no form that needs one.
  const html = (result.headers['content-type'] ?? '').startsWith('text/html')
  const lines = (result.headers['set-cookie'] ?? '').split('\n').filter((line) => line !== '' && !(html && line.startsWith('csrftoken=')))
  return lines.map((line) => (/;\s*max-age=0(;|$)/i.test(line) ? line : `${line.slice(0, line.indexOf('='))}=<set>`))
}

/** The parts of a response two servers must agree on. */
export function comparable(result: ExchangeResult, request?: ExchangeRequest): Record<string, unknown> {
  if (request?.statusOnly === true) return { status: result.status }
  const contentType = (result.headers['content-type'] ?? '').split(';')[0] ?? ''
  return {
    status: result.status,
    'www-authenticate': result.headers['www-authenticate'] ?? null,
    allow: result.headers['allow'] ?? null,
    'retry-after': result.headers['retry-after'] ?? null,
    // Accept: every view with two renderers (JSON and the browsable API), as DRF's.
    'vary-accept': /(^|,)\s*accept\s*(,|$)/i.test(result.headers['vary'] ?? ''),
    'vary-cookie': /(^|,)\s*cookie\s*(,|$)/i.test(result.headers['vary'] ?? ''),
    'content-type': contentType === '' ? null : contentType,
    'set-cookie': setCookies(result),
    body: contentType === 'application/json' ? maskBody(result.body) : result.text === '' ? '' : '<non-JSON body>',
  }
}
