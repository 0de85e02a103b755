/**
 * A fake OAuth 2.0 authorization server for tests: real HTTP on a loopback socket, answering
 * whatever the test says at each path (a discovery document, a JWKS, introspection answers,
 * or anything at all), and recording every request it gets (method, path, headers, body). Where
 * test/helpers/oidc-issuer.ts runs a real provider and so only ever answers what that provider
 * answers, this one serves the answers a provider should never give (`"active": "false"`, no
 * `aud`, a foreign `iss`, `http:` endpoints in an `https:` issuer's document), so that the
 * checks against them are tested.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'

/** One request the provider got. */
export interface RecordedRequest {
  readonly method: string
  /** The path, without the query. */
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** The body read as a form (introspection's `token`, `client_id`, …). */
  readonly form: URLSearchParams
}

/** An answer: a JSON body (or a string sent as is), 200 unless `status` says otherwise. */
export interface Reply {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body: unknown
}

export interface FakeProviderOptions {
  /** The introspection client; set, the introspection endpoint answers 401 to any other credentials. */
  readonly client?: { readonly id: string; readonly secret: string }
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>`: where it listens, and the issuer its default document names. */
  readonly origin: string
  /** The document served at `/.well-known/openid-configuration` (replace it to serve another). */
  discovery: Record<string, unknown>
  /** The key set served at `/jwks`: the public half of the signing key (replace it to serve another). */
  jwks: { keys: JWK[] }
  /**
   * The answer of the introspection endpoint (`/introspect`, POST) to a token, after the
   * client's credentials are checked. Default: `answers.get(token)`, else `{"active": false}`.
   */
  introspect: (token: string, request: RecordedRequest) => unknown
  /** Introspection answers by token, for the default `introspect`. */
  readonly answers: Map<string, unknown>
  /** Paths answered by the test, before anything above (any status, any body). */
  readonly routes: Map<string, (request: RecordedRequest) => Reply | Promise<Reply>>
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[]
  /** The requests received at `path`. */
  requestsTo(path: string): readonly RecordedRequest[]
  /** Resolves once `count` requests in all have reached `path`. */
  waitForRequests(path: string, count: number): Promise<void>
  /** A JWT signed with the provider's key (RS256, `typ: at+jwt`, its `kid` unless `header` says otherwise). */
  sign(claims: JWTPayload, header?: Record<string, unknown>): Promise<string>
  /**
   * A `fetch` that sends requests for `origin` (an `https:` one, say) to this provider over
   * plain HTTP and every other URL where it points: it stands in for TLS in front of the
   * provider, so that a test can configure an `https:` issuer and still see each request here.
   */
  fetchAs(origin: string): typeof fetch
  close(): Promise<void>
}

const MAX_BODY = 64 * 1024

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > MAX_BODY) req.destroy(new Error('body too large'))
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function send(res: ServerResponse, reply: Reply): void {
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
  res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers }).end(text)
}

/** The client id and secret of a request: HTTP Basic (RFC 6749 §2.3.1, form-encoded), else the form's. */
function clientOf(request: RecordedRequest): { id: string; secret: string } | null {
  const authorization = request.headers.authorization
  if (authorization !== undefined) {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization)
    if (match === null) return null
    const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) return null
    const unform = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '))
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) }
  }
  const id = request.form.get('client_id')
  const secret = request.form.get('client_secret')
  return id === null || secret === null ? null : { id, secret }
}

/** Starts a fake provider on 127.0.0.1 at a free port. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = 'fake-provider-key'
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }
  const requests: RecordedRequest[] = []
  const waiters: { path: string; count: number; resolve: () => void }[] = []
  const requestsTo = (path: string): readonly RecordedRequest[] => requests.filter((r) => r.path === path)

  // eslint-disable-next-line prefer-const -- assigned once the port is known; the handler reads it.
  let provider: FakeProvider
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req)
      const request: RecordedRequest = { method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://x').pathname, headers: req.headers, body, form: new URLSearchParams(body) }
      requests.push(request)
      for (const waiter of [...waiters]) {
        if (requestsTo(waiter.path).length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve()
        }
      }
      const route = provider.routes.get(request.path)
      if (route !== undefined) return send(res, await route(request))
      if (request.path === '/.well-known/openid-configuration') return send(res, { body: provider.discovery })
      if (request.path === '/jwks') return send(res, { body: provider.jwks })
      if (request.path === '/introspect' && request.method === 'POST') {
        const client = clientOf(request)
        if (options.client !== undefined && (client?.id !== options.client.id || client.secret !== options.client.secret)) return send(res, { status: 401, body: { error: 'invalid_client' } })
        return send(res, { body: await provider.introspect(request.form.get('token') ?? '', request) })
      }
      send(res, { status: 404, body: { error: 'not_found' } })
    })().catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const origin = `http://127.0.0.1:${address.port}`
  const signingKey: CryptoKey = privateKey

  provider = {
    origin,
    discovery: { issuer: origin, jwks_uri: `${origin}/jwks`, introspection_endpoint: `${origin}/introspect`, token_endpoint: `${origin}/token` },
    jwks: { keys: [publicJwk] },
    answers: new Map(),
    introspect: (token) => provider.answers.get(token) ?? { active: false },
    routes: new Map(),
    requests,
    requestsTo,
    waitForRequests(path, count) {
      if (requestsTo(path).length >= count) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ path, count, resolve }))
    },
    sign(claims, header = {}) {
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid, ...header }).sign(signingKey)
    },
    fetchAs(from) {
      const prefix = new URL(from).origin
      return (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
        return fetch(url.startsWith(`${prefix}/`) ? `${origin}${url.slice(prefix.length)}` : url, init)
      }
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      // Held introspections and kept-alive clients would keep close() waiting.
      server.closeAllConnections()
      await closed
    },
  }
  return provider
}
