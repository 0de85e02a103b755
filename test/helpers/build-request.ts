import type { ApiRequest } from '../../src/core/api-request.js'
import { createApiRequest } from '../../src/core/request/request-factory.js'

/** What a unit test sets on a request; everything is optional. */
export interface BuildRequestOptions {
  readonly method?: string
  /** Absolute URL. @default 'http://testserver/api/' */
  readonly url?: string
  /** Header values may hold Latin-1 characters, as Node gives raw header bytes. */
  readonly headers?: Readonly<Record<string, string>>
  readonly remoteAddress?: string | null
  /** Raw body text (set `content-type` in `headers`). */
  readonly body?: string
}

/**
 * An `ApiRequest` for isolated unit tests, built by the same factory the
 * adapters use, with a plain case-insensitive header map (no framework, no socket).
 */
export function buildRequest(options: BuildRequestOptions = {}): ApiRequest {
  const headers = new Map<string, string>()
  for (const [k, v] of Object.entries(options.headers ?? {})) headers.set(k.toLowerCase(), v)
  return createApiRequest({
    method: options.method ?? 'GET',
    url: new URL(options.url ?? 'http://testserver/api/'),
    headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
    remoteAddress: options.remoteAddress === undefined ? '127.0.0.1' : options.remoteAddress,
    readBody: async () => (options.body === undefined ? null : new TextEncoder().encode(options.body)),
  })
}
