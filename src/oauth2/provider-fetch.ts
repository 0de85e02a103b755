/**
 * Every request to the authorization server (discovery, JWKS, introspection) goes through
 * `fetchProviderJson`: a timeout, no redirects, a cap on the body, JSON objects only. What goes
 * wrong is a `ProviderUnavailable` whose message names the document and the cause, never a
 * credential (the URLs carry none: `checkedProviderUrl` refuses userinfo).
 */
import { ConfigurationError } from '../core/errors.js'
import { redactConfigValue } from '../core/redact.js'

/** The authorization server could not be asked, or answered something unusable: the request gets 503. */
export class ProviderUnavailable extends Error {
  override readonly name = 'ProviderUnavailable'
  /** The HTTP status it answered, or `null` when it did not answer (refused, timed out, too big). */
  readonly status: number | null
  constructor(message: string, status: number | null = null, options?: { cause?: unknown }) {
    super(message, options)
    this.status = status
  }
}

/** How requests to the authorization server are bounded. */
export interface FetchLimits {
  /** Whole request, body included. */
  readonly timeoutMs: number
  /** Largest body read; a longer one is cut off and refused. */
  readonly maxBytes: number
  readonly fetch: typeof fetch
}

/** What a request sends besides `GET`. */
export interface ProviderRequest {
  readonly method?: 'GET' | 'POST'
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** The first line of a network error's innermost cause (`connect ECONNREFUSED 127.0.0.1:9`), short. */
function reasonOf(error: unknown): string {
  let current: unknown = error
  for (let depth = 0; depth < 4; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause
    if (typeof cause !== 'object' || cause === null) break
    current = cause
  }
  if (current instanceof Error && (current.name === 'TimeoutError' || current.name === 'AbortError')) return 'timed out'
  const message = current instanceof Error ? current.message : String(current)
  const line = message.split('\n', 1)[0] ?? ''
  return line.length > 120 ? `${line.slice(0, 117)}...` : line
}

/** The body as bytes, at most `maxBytes` of them, else a `ProviderUnavailable`. */
async function boundedBody(response: Response, what: string, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw new ProviderUnavailable(`${what}: the answer is over ${maxBytes} bytes`, response.status)
  }
  const reader = response.body?.getReader()
  if (reader === undefined) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new ProviderUnavailable(`${what}: the answer is over ${maxBytes} bytes`, response.status)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * `url`'s JSON object: a 200 answer, within `limits`, that parses to an object. Anything else
 * (refused, timed out, redirected, another status, too big, not a JSON object) throws a
 * `ProviderUnavailable` naming `what`; its `status` tells a 404 from an outage.
 */
export async function fetchProviderJson(url: string, what: string, limits: FetchLimits, request: ProviderRequest = {}): Promise<Record<string, unknown>> {
  let response: Response
  const signal = AbortSignal.timeout(limits.timeoutMs)
  try {
    response = await limits.fetch(url, {
      method: request.method ?? 'GET',
      headers: { Accept: 'application/json', ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'error',
      signal,
    })
  } catch (error) {
    throw new ProviderUnavailable(`${what}: ${reasonOf(error)}`, null, { cause: error })
  }
  let bytes: Uint8Array
  try {
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined)
      throw new ProviderUnavailable(`${what}: answered ${response.status}`, response.status)
    }
    bytes = await boundedBody(response, what, limits.maxBytes)
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw error
    throw new ProviderUnavailable(`${what}: ${reasonOf(error)}`, null, { cause: error })
  }
  let value: unknown
  try {
    value = JSON.parse(UTF8.decode(bytes))
  } catch {
    throw new ProviderUnavailable(`${what}: the answer is not JSON`, response.status)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProviderUnavailable(`${what}: the answer is not a JSON object`, response.status)
  return value as Record<string, unknown>
}

/** True for `localhost`, `127.x.x.x` and `[::1]`: where plain `http:` is allowed (tests, a sidecar). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(hostname)
}

/**
 * `value` parsed as a URL the authorization server may be reached at: `https:`, or `http:` on a
 * loopback address; no user or password in it (they would end up in logs). `null` when not.
 */
export function providerUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return null
  }
  if (url.username !== '' || url.password !== '') return null
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return url
  return null
}

/**
 * `value` as an endpoint the discovery document of `issuer` may name: a provider URL
 * (`providerUrl`) that is `https:` whenever the issuer is. Plain `http:` (loopback only) is
 * trusted only from an issuer that is itself loopback `http:` (a test provider): a document
 * served over TLS could otherwise send key fetches, and the introspection POST with the
 * client's credentials, to a cleartext port on the API's own host. `null` when not.
 */
export function providerEndpointOf(value: unknown, issuer: string): URL | null {
  const url = providerUrl(value)
  if (url === null) return null
  return url.protocol === 'https:' || new URL(issuer).protocol === 'http:' ? url : null
}

/** `value` as a provider URL (`providerUrl`), or a `ConfigurationError` naming `setting`. */
export function checkedProviderUrl(value: string, setting: string): string {
  if (providerUrl(value) === null) throw new ConfigurationError('ERR_INVALID_SETTING', `${setting} must be an https: URL (http: only on a loopback address) without a user or password, got "${redactConfigValue(value)}"`)
  return value
}
