/**
 * The request URL, by one rule on every adapter (issue 36 item 4): the origin comes from the
 * scheme and the `Host` the server was given, and the request target's path and query are
 * appended to it, never resolved as a URL. `//evil.example/x` stays a path on this host; an
 * absolute-form target (`GET http://evil.example/x`) keeps only its path and query, so no
 * request line can change the host that links, redirects and CSRF Origin checks are built from.
 */

const SIMPLE_HOST = /^[a-z0-9.-]+(?::[0-9]{1,5})?$/

/**
 * The absolute URL of a request: `null` when `host` is missing or is not a bare `host[:port]`
 * (a Host such as `a/b?` must not be able to rewrite the path links are built from).
 */
export function requestUrlOf(protocol: string, host: string | undefined, target: string): URL | null {
  if (host === undefined || host === '') return null
  // The common case in one parse: a lower-case name or IPv4 address, and an origin-form target
  // (neither can move the authority: `//x` after a host is a path).
  if (SIMPLE_HOST.test(host) && target.startsWith('/')) {
    try {
      return new URL(`${protocol}://${host}${target}`)
    } catch {
      return null
    }
  }
  try {
    const base = new URL(`${protocol}://${host}`)
    if (base.pathname !== '/' || base.search !== '' || base.hash !== '' || base.username !== '' || base.password !== '') return null
    // Origin-form (`/path?q`) is appended as it is; absolute-form keeps its path and query.
    if (target.startsWith('/')) return new URL(`${base.origin}${target}`)
    const absolute = new URL(target)
    return new URL(`${base.origin}${absolute.pathname}${absolute.search}`)
  } catch {
    return null
  }
}
