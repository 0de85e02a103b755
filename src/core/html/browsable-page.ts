import type { ApiResponse } from '../api-response.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToBase64 } from '../encoding/base64.js'
import { utf8Encode } from '../encoding/text.js'

/**
 * The HTML page of DRF's `BrowsableAPIRenderer`, reduced to what it shows about the answer:
 * the request line, the status line and headers, the pretty-printed JSON (URLs linked) and
 * the page controls. It lives in the core because every `ApiView` renders it, successes and
 * errors alike (DRF's renderers are chosen by the view, not by the handler).
 */

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

/** Python's `http.client.responses`, the reason phrases DRF's page shows (`HTTP 401 Unauthorized`). */
const REASON_PHRASES: Readonly<Record<number, string>> = Object.freeze({
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing', 103: 'Early Hints',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information', 204: 'No Content',
  205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status', 208: 'Already Reported', 226: 'IM Used',
  300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified',
  305: 'Use Proxy', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 407: 'Proxy Authentication Required', 408: 'Request Timeout',
  409: 'Conflict', 410: 'Gone', 411: 'Length Required', 412: 'Precondition Failed', 413: 'Request Entity Too Large',
  414: 'Request-URI Too Long', 415: 'Unsupported Media Type', 416: 'Requested Range Not Satisfiable',
  417: 'Expectation Failed', 418: "I'm a Teapot", 421: 'Misdirected Request', 422: 'Unprocessable Entity',
  423: 'Locked', 424: 'Failed Dependency', 425: 'Too Early', 426: 'Upgrade Required', 428: 'Precondition Required',
  429: 'Too Many Requests', 431: 'Request Header Fields Too Large', 451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout', 505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates',
  507: 'Insufficient Storage', 508: 'Loop Detected', 510: 'Not Extended', 511: 'Network Authentication Required',
})

/** The reason phrase of a status (`Not Found`), Python's as DRF shows it; `undefined` for an unknown code. */
export function reasonPhrase(status: number): string | undefined {
  return REASON_PHRASES[status]
}

/** DRF's status line on the page: `HTTP 404 Not Found` (an unknown code keeps the space, as DRF's does). */
export function statusLine(status: number): string {
  return `HTTP ${status} ${reasonPhrase(status) ?? ''}`
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
pre{background:#f6f6f6;padding:1rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}
nav.page-controls{float:right}
ul.pagination,ul.pager{list-style:none;display:flex;gap:.25rem;padding:0;margin:5px 0 10px 0}
ul.pagination li a,ul.pager li a{display:block;padding:.3rem .6rem;border:1px solid #ccc;text-decoration:none}
li.active a{background:#2c6ebd;color:#fff}
li.disabled a{color:#aaa;pointer-events:none}
details.filters{float:right;clear:right;margin:5px 10px 10px 0;max-width:40rem;border:1px solid #ccc;padding:.3rem .6rem}
details.filters summary{cursor:pointer}
details.filters .list-group a{display:block;padding:.2rem 0}
details.filters .list-group a.active{font-weight:bold}`

/**
 * Headers of every HTML page: no MIME sniffing, no framing (clickjacking), and a
 * Content-Security-Policy that allows the page's one inline style (by its hash) and
 * nothing else: no script, image or font; forms (a list's filter panel, GET) submit to the
 * page's own origin only.
 */
export const HTML_SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = Object.freeze([
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  [
    'Content-Security-Policy',
    `default-src 'none'; style-src 'sha256-${bytesToBase64(sha256(utf8Encode(STYLE)))}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  ],
] as const)

/** What the HTML page shows. */
export interface BrowsablePageOptions {
  /** Page heading, usually the view's name. */
  readonly title: string
  readonly method: string
  /** The request's absolute URL. */
  readonly url: URL
  /** The JSON response the page displays (status, headers, body). */
  readonly response: ApiResponse
  /** Page controls markup (a paginator's `toHtml`), or `null` for none. @default response.pageControls */
  readonly controls?: string | null
  /**
   * Headers the page shows besides the response's own, without sending them (a view's
   * `Allow` and `Vary: Accept`, which the view adds to the page's answer itself).
   * @default []
   */
  readonly shownHeaders?: readonly (readonly [string, string])[]
}

/** Turns the absolute URLs inside escaped text into links, as DRF's browsable API does. */
function linkify(escaped: string): string {
  // Inside quotes (JSON strings) or angle brackets (a Link header). escapeHtml writes `&` as
  // `&#38;`; `&` is outside the runs, so the pattern cannot backtrack.
  return escaped.replace(
    /(&#34;|&#60;)(https?:\/\/[^\s&]*(?:&#38;[^\s&]*)*)(&#34;|&#62;)/g,
    (_m, open: string, url: string, close: string) => `${open}<a href="${url}" rel="nofollow">${url}</a>${close}`,
  )
}

/** Set-Cookie is never shown (DRF's page shows `response.items()`, which holds no cookies). */
const HIDDEN = new Set(['content-type', 'set-cookie'])

/**
 * Renders a JSON response as an HTML page (a small browsable API): request line, DRF's
 * status line and headers (sorted by name, `Content-Type: application/json` as DRF shows
 * the JSON renderer's), the pretty-printed body, and the style's page controls. The page
 * answers with the response's status (a 204 becomes 200, as DRF's page does: the page is
 * content) and headers, plus {@link HTML_SECURITY_HEADERS}.
 */
export function renderBrowsablePage(options: BrowsablePageOptions): ApiResponse {
  const { response } = options
  const headers = response.headers.filter(([name]) => name.toLowerCase() !== 'content-type')
  const shown = new Map<string, string>()
  for (const [name, value] of [...headers, ...(options.shownHeaders ?? [])]) if (!HIDDEN.has(name.toLowerCase())) shown.set(name, value)
  shown.set('Content-Type', 'application/json')
  const names = [...shown.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  // A string body is already serialised (`serializeBody` writes it as is).
  const json = response.body === undefined ? '' : typeof response.body === 'string' ? response.body : JSON.stringify(response.body, null, 4)
  const head = [statusLine(response.status), ...names.map((name) => `${name}: ${shown.get(name) ?? ''}`)].map((line) => linkify(escapeHtml(line))).join('\n')
  const markup = options.controls === undefined ? response.pageControls : options.controls
  const controls = markup === null || markup === undefined || markup === '' ? '' : `<nav class="page-controls">\n${markup}\n</nav>\n`
  const filters = response.filterForm === undefined || response.filterForm === '' ? '' : `${response.filterForm}\n`
  const path = `${options.url.pathname}${options.url.search}`
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(options.title)}</h1>
${filters}${controls}<div class="request-info"><pre><b>${escapeHtml(options.method)}</b> ${escapeHtml(path)}</pre></div>
<div class="response-info"><pre class="response-headers">${head}
</pre>
<pre class="response-body">${linkify(escapeHtml(json))}</pre></div>
</body>
</html>
`
  return {
    status: response.status === 204 ? 200 : response.status,
    headers: [['Content-Type', 'text/html; charset=utf-8'], ...securityHeaders(headers), ...headers],
    body: html,
  }
}

/**
 * The page's security headers the response does not set itself (the admin's redirect sets its
 * own CSP): each header once, decided here rather than by every adapter on every request.
 */
function securityHeaders(own: readonly (readonly [string, string])[]): readonly (readonly [string, string])[] {
  if (own.length === 0) return HTML_SECURITY_HEADERS
  return HTML_SECURITY_HEADERS.filter(([name]) => !own.some(([other]) => other.length === name.length && other.toLowerCase() === name.toLowerCase()))
}

/** True when the response is JSON (or has no body): the kind of answer the page shows. */
export function isJson(response: ApiResponse): boolean {
  const contentType = response.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1]
  if (contentType === undefined) return response.body === undefined || typeof response.body !== 'string'
  return (contentType.split(';')[0] ?? '').trim().toLowerCase() === 'application/json'
}
