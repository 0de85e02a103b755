import { fetchProviderJson, providerEndpointOf, ProviderUnavailable, type FetchLimits } from './provider-fetch.js'

/** What the resource server reads from the authorization server's metadata. */
export interface ProviderMetadata {
  readonly issuer: string
  /** `jwks_uri`, or `null` when the server publishes no keys (opaque tokens only). */
  readonly jwksUri: string | null
  /** `introspection_endpoint`, or `null` when it has none. */
  readonly introspectionEndpoint: string | null
}

export interface DiscoveryOptions {
  readonly issuer: string
  /** Where the metadata is; `undefined`: OpenID Connect Discovery's place, then RFC 8414's. */
  readonly discoveryUrl: string | undefined
  readonly limits: FetchLimits
  /** After a failure, requests for this long fail at once instead of asking again. */
  readonly retryAfterMs: number
  readonly now: () => number
}

/**
 * The metadata URLs of `issuer`, in the order they are tried: OpenID Connect Discovery 1.0 §4
 * appends `/.well-known/openid-configuration` to the issuer; RFC 8414 §3 puts
 * `/.well-known/oauth-authorization-server` between the host and the issuer's path.
 */
export function wellKnownUrls(issuer: string): readonly string[] {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, '')
  return [`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, `${url.origin}/.well-known/oauth-authorization-server${path}`]
}

/**
 * A metadata field naming an endpoint: `null` when absent, else a URL `providerEndpointOf`
 * allows for `issuer` (`https:` when the issuer is) or a `ProviderUnavailable`.
 */
function endpoint(document: Record<string, unknown>, field: string, issuer: string): string | null {
  const value = document[field]
  if (value === undefined || value === null) return null
  if (providerEndpointOf(value, issuer) === null) {
    throw new ProviderUnavailable(`discovery: ${field} is not an https: URL${new URL(issuer).protocol === 'https:' ? ' (the issuer is https:, so its endpoints must be)' : ''}`)
  }
  return value as string
}

/**
 * The authorization server's metadata, fetched once and kept: the first request that needs it
 * waits for it (concurrent ones share that fetch). The document must name the configured
 * issuer exactly (OpenID Connect Discovery §4.3, RFC 8414 §3.3), so a look-alike server's
 * keys are never trusted. A failure is remembered for `retryAfterMs`.
 */
export class Discovery {
  private metadata: ProviderMetadata | null = null
  private pending: Promise<ProviderMetadata> | null = null
  private failure: { readonly error: ProviderUnavailable; readonly until: number } | null = null

  constructor(private readonly options: DiscoveryOptions) {}

  get(): Promise<ProviderMetadata> {
    if (this.metadata !== null) return Promise.resolve(this.metadata)
    if (this.pending !== null) return this.pending
    if (this.failure !== null && this.options.now() < this.failure.until) return Promise.reject(this.failure.error)
    this.pending = this.load().then(
      (metadata) => {
        this.metadata = metadata
        this.pending = null
        this.failure = null
        return metadata
      },
      (error: unknown) => {
        this.pending = null
        const failure = error instanceof ProviderUnavailable ? error : new ProviderUnavailable(`discovery: ${String(error)}`, null, { cause: error })
        this.failure = { error: failure, until: this.options.now() + this.options.retryAfterMs }
        throw failure
      },
    )
    return this.pending
  }

  private async load(): Promise<ProviderMetadata> {
    const { issuer, discoveryUrl, limits } = this.options
    const urls = discoveryUrl === undefined ? wellKnownUrls(issuer) : [discoveryUrl]
    let document: Record<string, unknown> | null = null
    for (const [i, url] of urls.entries()) {
      try {
        document = await fetchProviderJson(url, 'discovery', limits)
        break
      } catch (error) {
        // Not there: the next well-known place may be.
        if (error instanceof ProviderUnavailable && error.status === 404 && i < urls.length - 1) continue
        throw error
      }
    }
    if (document === null) throw new ProviderUnavailable('discovery: no metadata document')
    if (document['issuer'] !== issuer) throw new ProviderUnavailable('discovery: the document names another issuer')
    return { issuer, jwksUri: endpoint(document, 'jwks_uri', issuer), introspectionEndpoint: endpoint(document, 'introspection_endpoint', issuer) }
  }
}
