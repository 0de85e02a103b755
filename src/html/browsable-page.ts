import { createHash } from 'node:crypto'
import type { ApiResponse } from '../core/api-response.js'
import type { RequestContext } from '../core/view.js'
import { escapeHtml } from './control-templates.js'

/** What the HTML page shows. */
export interface BrowsablePageOptions {
  /** Page heading, usually the view's name. */
  readonly title: string
  readonly method: string
  /** The request's absolute URL. */
  readonly url: URL
  /** The JSON response the page displays (status, headers, body). */
  readonly response: ApiResponse
  /** Page controls markup (a paginator's `toHtml`), or `null` for none. */
  readonly controls: string | null
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
pre{background:#f6f6f6;padding:1rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}
nav.page-controls{float:right}
ul.pagination,ul.pager{list-style:none;display:flex;gap:.25rem;padding:0;margin:5px 0 10px 0}
ul.pagination li a,ul.pager li a{display:block;padding:.3rem .6rem;border:1px solid #ccc;text-decoration:none}
li.active a{background:#2c6ebd;color:#fff}
li.disabled a{color:#aaa;pointer-events:none}`

/**
 * Headers of every HTML page: no MIME sniffing, no framing (clickjacking), and a
 * Content-Security-Policy that allows the page's one inline style (by its hash) and
 * nothing else: no script, image, font or form target.
 */
export const HTML_SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = Object.freeze([
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  [
    'Content-Security-Policy',
    `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  ],
] as const)

/** Turns the absolute URLs inside the escaped JSON into links, as DRF's browsable API does. */
function linkify(escapedJson: string): string {
  // escapeHtml writes `&` as `&#38;`; `&` is outside the runs, so the pattern cannot backtrack.
  return escapedJson.replace(/&#34;(https?:\/\/[^\s&]*(?:&#38;[^\s&]*)*)&#34;/g, (_m, url: string) => `&#34;<a href="${url}" rel="nofollow">${url}</a>&#34;`)
}

/**
 * Renders a JSON response as an HTML page (a small browsable API): request line,
 * status and headers, the pretty-printed body, and the style's page controls.
 */
export function renderBrowsablePage(options: BrowsablePageOptions): ApiResponse {
  const { response } = options
  const headers = response.headers.filter(([name]) => name.toLowerCase() !== 'content-type')
  const json = response.body === undefined ? '' : JSON.stringify(response.body, null, 4)
  const head = [`HTTP ${response.status}`, ...headers.map(([n, v]) => `${n}: ${v}`)].map(escapeHtml).join('\n')
  const controls = options.controls === null || options.controls === '' ? '' : `<nav class="page-controls">\n${options.controls}\n</nav>\n`
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
${controls}<div class="request-info"><pre><b>${escapeHtml(options.method)}</b> ${escapeHtml(path)}</pre></div>
<div class="response-info"><pre class="response-headers">${head}</pre>
<pre class="response-body">${linkify(escapeHtml(json))}</pre></div>
</body>
</html>
`
  return {
    status: response.status,
    headers: [['Content-Type', 'text/html; charset=utf-8'], ...HTML_SECURITY_HEADERS, ...headers],
    body: html,
  }
}

/**
 * Answers in the negotiated format: the JSON response as is, or (for `text/html`)
 * the same response shown on an HTML page with `controls`.
 */
export function formatResponse(ctx: RequestContext, response: ApiResponse, controls: string | null = null): ApiResponse {
  if (ctx.format !== 'html') return response
  return renderBrowsablePage({
    title: ctx.view.name,
    method: ctx.request.method,
    url: ctx.request.url,
    response,
    controls,
  })
}
