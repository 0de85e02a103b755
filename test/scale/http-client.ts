/** A small fetch wrapper for the scale-out and fault tests: JSON in, JSON and cookies out. */

/** What a test needs from a response. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON body, or `null` for an empty body. */
  readonly body: unknown
  /** `name → value` of every `Set-Cookie`. */
  readonly cookies: Readonly<Record<string, string>>
}

/** Options of one request. */
export interface Call {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  /** Sent as JSON. */
  readonly json?: unknown
  /** Sent as a `Cookie` header. */
  readonly cookies?: Readonly<Record<string, string>>
  /** Abort (and fail) when no answer comes within this many ms. @default 15000 */
  readonly timeoutMs?: number
}

/** Sends one request to `base + path` and reads the whole answer. */
export async function call(base: string, path: string, options: Call = {}): Promise<Reply> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers }
  if (options.json !== undefined) headers['Content-Type'] = 'application/json'
  if (options.cookies !== undefined) {
    headers['Cookie'] = Object.entries(options.cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ')
  }
  const response = await fetch(new URL(path, base), {
    method: options.method ?? 'GET',
    headers,
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  })
  const text = await response.text()
  const cookies: Record<string, string> = {}
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(';', 1)[0] ?? ''
    const eq = pair.indexOf('=')
    if (eq > 0) cookies[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim()
  }
  let body: unknown = null
  if (text !== '') {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  return { status: response.status, headers: response.headers, body, cookies }
}

/** Logs `username` in through `base` (csrf cookie, then login): the cookies a browser would hold. */
export async function login(base: string, username: string, password: string): Promise<{ sessionid: string; csrftoken: string }> {
  const csrf = await call(base, '/api/auth/csrf/')
  const csrftoken = csrf.cookies['csrftoken']
  if (csrf.status !== 200 || csrftoken === undefined) throw new Error(`csrf: ${csrf.status} ${JSON.stringify(csrf.body)}`)
  const reply = await call(base, '/api/auth/login/', {
    method: 'POST',
    json: { username, password },
    cookies: { csrftoken },
    headers: { 'X-CSRFToken': csrftoken },
  })
  const sessionid = reply.cookies['sessionid']
  if (reply.status !== 200 || sessionid === undefined) throw new Error(`login: ${reply.status} ${JSON.stringify(reply.body)}`)
  // Login rotates the CSRF token, as Django does.
  return { sessionid, csrftoken: reply.cookies['csrftoken'] ?? csrftoken }
}
