import { parse as parseCookieHeader } from 'cookie'
import type { ApiRequest, HeaderBag, RequestData } from './api-request.js'
import { parseBody } from './body-parser.js'

/** What an adapter knows about a request; `createApiRequest` turns it into an `ApiRequest`. */
export interface RawRequest {
  readonly method: string
  readonly url: URL
  readonly headers: HeaderBag
  readonly remoteAddress: string | null
  /** Reads the raw body bytes once; `null` when there is none. */
  readonly readBody: () => Promise<Uint8Array | null>
}

/** Parses a Cookie header leniently: malformed pairs are skipped, never thrown. */
export function parseCookies(header: string | null): Readonly<Record<string, string>> {
  if (header === null || header === '') return {}
  try {
    const parsed = parseCookieHeader(header)
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v
    return out
  } catch {
    return {}
  }
}

/** Builds the framework-free request every policy sees. Shared by all adapters. */
export function createApiRequest(raw: RawRequest): ApiRequest {
  let cookies: Readonly<Record<string, string>> | null = null
  let body: Promise<RequestData> | null = null
  return {
    method: raw.method.toUpperCase(),
    url: raw.url,
    headers: raw.headers,
    remoteAddress: raw.remoteAddress,
    cookie(name: string): string | null {
      cookies ??= parseCookies(raw.headers.get('cookie'))
      return Object.hasOwn(cookies, name) ? (cookies[name] ?? null) : null
    },
    body(): Promise<RequestData> {
      body ??= raw.readBody().then((bytes) => parseBody(raw.headers.get('content-type'), bytes))
      return body
    },
  }
}
