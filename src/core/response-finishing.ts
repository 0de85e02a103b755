import type { ApiResponse } from './api-response.js'

/** What a view adds to every response it sends. */
export interface FinishOptions {
  /** The request's method: a HEAD answer loses its body. */
  readonly method: string
  /** The view's `Allow` header, built once. */
  readonly allow: string
  /** `Vary` values the view adds (Accept for several renderers, what the consulted schemes read). */
  readonly vary: readonly string[]
}

/**
 * DRF's `finalize_response`: the `Allow` header on every answer, one merged `Vary`
 * (Django's `patch_vary_headers` order: the handler's own values first, case-insensitively
 * deduplicated), and no body for HEAD.
 */
export function finishResponse(response: ApiResponse, options: FinishOptions): ApiResponse {
  const { headers, vary } = splitVary(response, options.vary)
  headers.push(['Allow', options.allow])
  if (vary !== null) headers.push(['Vary', vary])
  return { status: response.status, headers, body: options.method === 'HEAD' ? undefined : response.body }
}

/** The response's headers without `Vary`, and the merged `Vary` value (`null`: none). */
function splitVary(response: ApiResponse, extra: readonly string[]): { headers: (readonly [string, string])[]; vary: string | null } {
  const varyValues: string[] = []
  const headers: (readonly [string, string])[] = []
  for (const header of response.headers) {
    if (header[0].toLowerCase() === 'vary') varyValues.push(...header[1].split(','))
    else headers.push(header)
  }
  varyValues.push(...extra)
  const vary: string[] = []
  const seen = new Set<string>()
  for (const raw of varyValues) {
    const value = raw.trim()
    if (value === '' || seen.has(value.toLowerCase())) continue
    seen.add(value.toLowerCase())
    vary.push(value)
  }
  return { headers, vary: vary.length > 0 ? vary.join(', ') : null }
}
