import type { ApiResponse } from './api-response.js'

type Header = readonly [string, string]

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
 * The headers a view adds, prepared once per view and outcome: `Allow`, and the `Vary`
 * values with their merged header (what an answer with no `Vary` of its own gets).
 */
export interface PreparedFinish {
  readonly allow: Header
  readonly vary: readonly string[]
  /** `Vary: <vary merged>`, or `null` when `vary` merges to nothing. */
  readonly varyHeader: Header | null
}

/** Prepares what `finishPrepared` adds: built when the view is declared, never per request. */
export function prepareFinish(allow: string, vary: readonly string[]): PreparedFinish {
  const merged = mergeVary([], vary)
  return Object.freeze({ allow: Object.freeze(['Allow', allow] as const), vary: Object.freeze([...vary]), varyHeader: merged === null ? null : Object.freeze(['Vary', merged] as const) })
}

/**
 * DRF's `finalize_response`: the `Allow` header on every answer, one merged `Vary`
 * (Django's `patch_vary_headers` order: the handler's own values first, case-insensitively
 * deduplicated), and no body for HEAD.
 */
export function finishResponse(response: ApiResponse, options: FinishOptions): ApiResponse {
  return finishPrepared(response, options.method, prepareFinish(options.allow, options.vary))
}

/** `finishResponse` with the view's headers prepared: one header array per answer. */
export function finishPrepared(response: ApiResponse, method: string, prepared: PreparedFinish): ApiResponse {
  const own = response.headers
  let hasVary = false
  for (let i = 0; i < own.length; i++) {
    if (isVary((own[i] as Header)[0])) {
      hasVary = true
      break
    }
  }
  let headers: Header[]
  if (!hasVary) {
    headers = own.slice()
    headers.push(prepared.allow)
    if (prepared.varyHeader !== null) headers.push(prepared.varyHeader)
  } else {
    const ownVary: string[] = []
    headers = []
    for (const header of own) {
      if (isVary(header[0])) ownVary.push(header[1])
      else headers.push(header)
    }
    headers.push(prepared.allow)
    const vary = mergeVary(ownVary, prepared.vary)
    if (vary !== null) headers.push(['Vary', vary])
  }
  return { status: response.status, headers, body: method === 'HEAD' ? undefined : response.body }
}

function isVary(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === 'vary'
}

/** The merged `Vary` value of the answer's own header values then `extra` (`null`: none). */
function mergeVary(own: readonly string[], extra: readonly string[]): string | null {
  const values: string[] = []
  for (const header of own) values.push(...header.split(','))
  values.push(...extra)
  const vary: string[] = []
  const seen = new Set<string>()
  for (const raw of values) {
    const value = raw.trim()
    if (value === '' || seen.has(value.toLowerCase())) continue
    seen.add(value.toLowerCase())
    vary.push(value)
  }
  return vary.length > 0 ? vary.join(', ') : null
}
