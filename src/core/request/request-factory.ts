import type { ApiRequest, HeaderBag, RequestData, RequestNotes } from '../api-request.js'
import { parseBody } from './body-parser.js'
import { isPythonSpace, stripWith } from './python-strip.js'
import { djangoPath } from './url-decoding.js'

/** What an adapter knows about a request; `createApiRequest` turns it into an `ApiRequest`. */
export interface RawRequest {
  readonly method: string
  readonly url: URL
  /**
   * The request headers: a `HeaderBag` (a Web `Headers` is one), or Node's parsed headers
   * (`req.headers` of node:http, Express, Fastify, Koa), read case-insensitively with repeated
   * headers joined by `, `.
   */
  readonly headers: HeaderBag | NodeHeaders
  readonly remoteAddress: string | null
  /** Path parameters of the matched route, decoded. @default {} */
  readonly params?: Readonly<Record<string, string>>
  /** Reads the raw body bytes once; `null` when there is none. */
  readonly readBody: () => Promise<Uint8Array | null>
  /**
   * A body the framework already parsed (Express's `express.json()`, Fastify's JSON parser):
   * called on the first `body()`; `{ data }` is used as is, `null` falls back to `readBody`.
   */
  readonly parsedBody?: () => { readonly data: RequestData } | null
  /** The most form fields the body may hold (Django's `DATA_UPLOAD_MAX_NUMBER_FIELDS`). @default 1000 */
  readonly maxFormFields?: number
}

/** Node's parsed request headers (`IncomingHttpHeaders`), named by their shape: the core imports no `node:http`. */
export type NodeHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

/** Node's parsed headers as a `HeaderBag`: lower-case names, a repeated header's values joined with `, `. */
function nodeHeaderBag(headers: NodeHeaders): HeaderBag {
  return {
    get(name: string): string | null {
      const value = headers[name.toLowerCase()]
      if (value === undefined) return null
      return typeof value === 'string' ? value : value.join(', ')
    },
  }
}

/** Python's str.strip() set within Latin-1 (header values are Latin-1 strings). */
const isLatin1PythonSpace = (code: number): boolean => code <= 0xff && isPythonSpace(code)

/** Python's `http.cookies._unquote`: `"…"` loses its quotes and `\ooo` / `\x` escapes. */
function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value
  return value.slice(1, -1).replace(/\\(?:([0-3][0-7][0-7])|(.))/g, (_m, octal: string | undefined, char: string | undefined) =>
    octal !== undefined ? String.fromCharCode(parseInt(octal, 8)) : (char ?? ''),
  )
}

/**
 * Parses a Cookie header exactly as Django's `parse_cookie` (what DRF's session
 * and CSRF checks read): split on `;`, a chunk without `=` is a value with an
 * empty name, names and values trimmed, quoted values unquoted, no percent-decoding,
 * and the **last** of duplicate names wins. Never throws.
 */
export function parseCookies(header: string | null): Readonly<Record<string, string>> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>
  if (header === null || header === '') return out
  for (const chunk of header.split(';')) {
    const eq = chunk.indexOf('=')
    const key = stripWith(eq === -1 ? '' : chunk.slice(0, eq), isLatin1PythonSpace)
    const value = stripWith(eq === -1 ? chunk : chunk.slice(eq + 1), isLatin1PythonSpace)
    if (key !== '' || value !== '') out[key] = unquote(value)
  }
  return out
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})
const NO_COOKIES: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>)

function isEmpty(record: Readonly<Record<string, string>>): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return false
  return true
}

/** `url` with the path Django's views see (`djangoPath`): links built from it are DRF's. */
function withDjangoPath(url: URL): URL {
  if (!url.pathname.includes('%')) return url
  const copy = new URL(url.href)
  copy.pathname = djangoPath(url.pathname)
  return copy
}

/**
 * The framework-free request: one object per request, its methods on the prototype (no
 * closure per request), the cookies and the body read only when asked.
 */
class CoreApiRequest implements ApiRequest {
  readonly method: string
  readonly url: URL
  readonly headers: HeaderBag
  readonly remoteAddress: string | null
  readonly params: Readonly<Record<string, string>>
  readonly #raw: RawRequest
  #cookies: Readonly<Record<string, string>> | null = null
  #body: Promise<RequestData> | null = null
  readonly notes: RequestNotes = { numProxies: undefined, staleCookies: undefined }

  constructor(raw: RawRequest) {
    this.method = raw.method.toUpperCase()
    this.url = withDjangoPath(raw.url)
    // A `HeaderBag` has a `get` method; Node's header record never holds a function.
    this.headers = typeof raw.headers['get'] === 'function' ? (raw.headers as HeaderBag) : nodeHeaderBag(raw.headers as NodeHeaders)
    this.remoteAddress = raw.remoteAddress
    this.params = raw.params === undefined || isEmpty(raw.params) ? NO_PARAMS : Object.freeze({ ...raw.params })
    this.#raw = raw
  }

  cookie(name: string): string | null {
    let cookies = this.#cookies
    if (cookies === null) {
      const header = this.headers.get('cookie')
      // Most API requests carry no Cookie header: one shared empty record for them.
      cookies = this.#cookies = header === null || header === '' ? NO_COOKIES : parseCookies(header)
    }
    return Object.hasOwn(cookies, name) ? (cookies[name] ?? null) : null
  }

  body(): Promise<RequestData> {
    if (this.#body !== null) return this.#body
    const raw = this.#raw
    const parsed = raw.parsedBody?.() ?? null
    this.#body =
      parsed !== null
        ? Promise.resolve(parsed.data)
        : raw.readBody().then((bytes) => parseBody(this.headers.get('content-type'), bytes, raw.maxFormFields === undefined ? {} : { maxFormFields: raw.maxFormFields }))
    return this.#body
  }
}

/** Builds the framework-free request every policy sees. Shared by all adapters. */
export function createApiRequest(raw: RawRequest): ApiRequest {
  return new CoreApiRequest(raw)
}
