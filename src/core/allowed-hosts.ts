/**
 * Django's `ALLOWED_HOSTS` check (`validate_host`): links are built from the request's
 * `Host`, so an app that says which names it answers to cannot be made to point its
 * links (and cached pages) at an attacker's host.
 */

/**
 * True when `hostname` (as the URL parser gives it: lower-cased, IPv6 in brackets,
 * no port) matches one of `patterns`: `*` matches anything, `.example.com` matches
 * example.com and every subdomain, anything else matches exactly (case-insensitively).
 * A trailing dot on the host is ignored, as in Django.
 */
export function isAllowedHost(hostname: string, patterns: readonly string[]): boolean {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  if (host === '') return false
  for (const raw of patterns) {
    const pattern = raw.toLowerCase()
    if (pattern === '*') return true
    if (pattern.startsWith('.')) {
      if (host === pattern.slice(1) || host.endsWith(pattern)) return true
    } else if (host === pattern) {
      return true
    }
  }
  return false
}
