import { createHash } from 'node:crypto'
import type { ApiResponse } from '../core/api-response.js'
import { iriToUri } from '../core/encoding/iri-to-uri.js'
import { escapeHtml } from '../core/html/browsable-page.js'
import { ADMIN_STYLESHEET } from './admin-stylesheet.js'

/**
 * Headers of every admin answer: no sniffing, no framing, no referrer, never cached (the
 * pages show accounts and, once, a token), and a Content-Security-Policy with no script at
 * all and styles only from the admin's own stylesheet.
 */
export const ADMIN_SECURITY_HEADERS: readonly (readonly [string, string])[] = Object.freeze([
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'same-origin'],
  ['Cache-Control', 'no-store'],
  ['Content-Security-Policy', "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"],
] as const)

/** Escapes text for element content and double-quoted attributes. */
export const h = escapeHtml

/** What every page shows besides its content. */
export interface PageFrame {
  /** The admin's path prefix (`/admin/`). */
  readonly prefix: string
  /** The site title in the bar. */
  readonly siteTitle: string
  /** The page title (`<title>` and `<h1>`). */
  readonly title: string
  /** The logged-in staff member, with the masked CSRF token for the logout form; `null` on the login page. */
  readonly staff: { readonly username: string; readonly csrfToken: string; readonly csrfField: string } | null
}

/** A whole admin page: the bar (site title, who is logged in, log out), the title, then `body` (already HTML). */
export function renderPage(frame: PageFrame, body: string): string {
  const who =
    frame.staff === null
      ? ''
      : `<span><span class="who">${h(frame.staff.username)}</span><form class="inline" method="post" action="${h(frame.prefix)}logout/">${csrfInput(frame.staff.csrfField, frame.staff.csrfToken)}<button type="submit">Log out</button></form></span>`
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${h(frame.title)} | ${h(frame.siteTitle)}</title>
<link rel="stylesheet" href="${h(frame.prefix)}admin.css?v=${STYLESHEET_VERSION}">
</head>
<body>
<header class="bar"><a href="${h(frame.prefix)}">${h(frame.siteTitle)}</a>${who}</header>
<main>
<h1>${h(frame.title)}</h1>
${body}
</main>
</body>
</html>
`
}

/** The stylesheet's version in its URL, so a changed sheet is fetched again. */
export const STYLESHEET_VERSION = createHash('sha256').update(ADMIN_STYLESHEET).digest('hex').slice(0, 8)

export function csrfInput(field: string, token: string): string {
  return `<input type="hidden" name="${h(field)}" value="${h(token)}">`
}

/** An HTML answer with the admin's security headers (and any extra, `Set-Cookie` say). */
export function htmlResponse(status: number, html: string, headers: readonly (readonly [string, string])[] = []): ApiResponse {
  return { status, headers: [['Content-Type', 'text/html; charset=utf-8'], ...ADMIN_SECURITY_HEADERS, ...headers], body: html }
}

/**
 * A redirect (`303 See Other` after a POST, `302` otherwise) to a path of this site, its
 * `Location` percent-encoded as Django's `HttpResponseRedirect` does (`iri_to_uri`): a `next`
 * of `/admin/€` or with DEL in it is sent as `%E2%82%AC`, `%7F`, never as a header value Node
 * refuses to write.
 */
export function redirect(location: string, status: 302 | 303 = 302, headers: readonly (readonly [string, string])[] = []): ApiResponse {
  return { status, headers: [['Location', iriToUri(location)], ...ADMIN_SECURITY_HEADERS, ...headers], body: undefined }
}

/** A date as the pages show it: `2026-11-25 20:47 UTC`. */
export function shownDate(date: Date | null): string {
  if (date === null) return '—'
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}
