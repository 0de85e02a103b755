/** A small browser-like client for the admin pages over real HTTP: a cookie jar, form posts, no redirects followed. */

/** One answer: status, headers, the HTML. */
export interface Page {
  readonly status: number
  readonly headers: Headers
  readonly html: string
}

/** A client with its own cookies (one "browser"). */
export class AdminClient {
  readonly cookies = new Map<string, string>()

  constructor(readonly baseUrl: string) {}

  private remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
  }

  /** Sends a request as a browser would (Accept: text/html), keeping the cookies it sets. */
  async request(method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<Page> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      redirect: 'manual',
      headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8', ...this.cookieHeader(), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
      signal: AbortSignal.timeout(20_000),
    })
    this.remember(response.headers)
    return { status: response.status, headers: response.headers, html: await response.text() }
  }

  get(path: string): Promise<Page> {
    return this.request('GET', path)
  }

  /** Posts a urlencoded form; `csrf` (the default) adds the CSRF field read from `from`'s page. */
  post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    return this.request('POST', path, {
      body: new URLSearchParams(fields).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: this.baseUrl, ...headers },
    })
  }
}

/** The CSRF token of the first form of a page. */
export function csrfOf(page: Page): string {
  const match = /name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"/.exec(page.html)
  if (match?.[1] === undefined) throw new Error(`no CSRF field on the page (status ${page.status})`)
  return match[1]
}

/** Logs `client` in through the admin's login form; answers the login POST's reply. */
export async function adminLogin(client: AdminClient, username: string, password: string, prefix = '/admin/'): Promise<Page> {
  const form = await client.get(`${prefix}login/`)
  return client.post(`${prefix}login/`, { csrfmiddlewaretoken: csrfOf(form), username, password, next: prefix })
}
