/**
 * A real OpenID provider for tests: `oidc-provider` (the certified OpenID provider for Node)
 * on a loopback port, issuing access tokens through the client-credentials grant, as JWTs
 * (RFC 9068, `typ: at+jwt`) for `JWT_API` and `OTHER_API` and opaque (RFC 7662 introspection)
 * for `OPAQUE_API`, with scopes `read` and `write`. It sits behind a switch so that tests
 * can rotate its signing keys (a new provider with the new key first, the old one last, as
 * oidc-provider's docs advise), take it down (`503`, refused connections, or no answer at all),
 * answer some path themselves, and count the requests made to each path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { exportJWK, generateKeyPair, type JWK } from 'jose'
import Provider, { errors } from 'oidc-provider'

/** The audiences the provider mints tokens for. */
export const JWT_API = 'https://api.gatehouse.test'
export const OPAQUE_API = 'https://opaque.gatehouse.test'
export const OTHER_API = 'https://other.gatehouse.test'

/** A client that gets tokens, and the resource server's own client (introspection). */
export const CLIENT = Object.freeze({ id: 'gatehouse-client', secret: 'client-secret-0123456789abcdef' })
export const RESOURCE_SERVER = Object.freeze({ id: 'gatehouse-api', secret: 'introspection-secret-0123456789' })

/** How the provider answers: `up`, `503` to everything, no answer at all (`hang`), or refused connections (`refuse`). */
export type IssuerMode = 'up' | '503' | 'hang' | 'refuse'

/** A private signing key of the provider (RS256), with its `kid`. */
export interface SigningKey {
  readonly kid: string
  readonly privateJwk: JWK
}

export interface RunningIssuer {
  /** `http://127.0.0.1:<port>`: the issuer identifier, as tokens' `iss` write it. */
  readonly issuer: string
  mode: IssuerMode
  /** Requests made per path (`/.well-known/openid-configuration`, `/jwks`, `/token/introspection`, …). */
  readonly hits: Map<string, number>
  /** A path answered by the test instead of the provider. */
  readonly overrides: Map<string, (req: IncomingMessage, res: ServerResponse) => void>
  /** The keys the provider signs with, the signing one first. */
  readonly keys: readonly SigningKey[]
  /** A client-credentials access token for `resource` with `scope`. */
  token(resource: string, scope: string): Promise<string>
  /** Revokes a token (RFC 7009). */
  revoke(token: string): Promise<void>
  /** Rotates: a new key signs from now on; the old ones are still published. Returns the new key. */
  rotate(): Promise<SigningKey>
  close(): Promise<void>
}

let keyCount = 0

async function newKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = `key-${++keyCount}-${Date.now().toString(36)}`
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), kid, use: 'sig', alg: 'RS256' } }
}

function provider(issuer: string, keys: readonly SigningKey[]): Provider {
  const resourceServers: Record<string, { scope: string; audience: string; accessTokenFormat: 'jwt' | 'opaque'; accessTokenTTL: number; jwt?: { sign: { alg: string } } }> = {
    [JWT_API]: { scope: 'read write', audience: JWT_API, accessTokenFormat: 'jwt', accessTokenTTL: 300, jwt: { sign: { alg: 'RS256' } } },
    [OTHER_API]: { scope: 'read write', audience: OTHER_API, accessTokenFormat: 'jwt', accessTokenTTL: 300, jwt: { sign: { alg: 'RS256' } } },
    [OPAQUE_API]: { scope: 'read write', audience: OPAQUE_API, accessTokenFormat: 'opaque', accessTokenTTL: 300 },
  }
  const p = new Provider(issuer, {
    clients: [
      { client_id: CLIENT.id, client_secret: CLIENT.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
      { client_id: RESOURCE_SERVER.id, client_secret: RESOURCE_SERVER.secret, grant_types: [], redirect_uris: [], response_types: [] },
    ],
    jwks: { keys: keys.map((k) => k.privateJwk) },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Any authenticated client may introspect or revoke (the defaults, said so to quiet their notices).
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => JWT_API,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          const server = resourceServers[indicator]
          if (server === undefined) throw new errors.InvalidTarget()
          return server
        },
      },
    },
    ttl: { AccessToken: 300, ClientCredentials: 300, Grant: 300, IdToken: 300, Interaction: 300, Session: 300, AuthorizationCode: 60, RefreshToken: 600 },
    cookies: { keys: ['oidc-issuer-test-cookie-key'] },
  })
  return p
}

/** Starts the provider on 127.0.0.1 at a free port. */
export async function startIssuer(): Promise<RunningIssuer> {
  const sockets = new Set<Socket>()
  const hits = new Map<string, number>()
  const overrides = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>()
  let current: ((req: IncomingMessage, res: ServerResponse) => void) | null = null
  const state = { mode: 'up' as IssuerMode }
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    hits.set(path, (hits.get(path) ?? 0) + 1)
    if (state.mode === 'refuse') {
      req.socket.destroy()
      return
    }
    if (state.mode === 'hang') return
    if (state.mode === '503') {
      res.writeHead(503, { 'Content-Type': 'text/plain' }).end('down for maintenance')
      return
    }
    const override = overrides.get(path)
    if (override !== undefined) override(req, res)
    else current?.(req, res)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const issuer = `http://127.0.0.1:${address.port}`
  let keys: SigningKey[] = [await newKey()]
  let instance = provider(issuer, keys)
  current = instance.callback()

  const form = async (path: string, body: Record<string, string>): Promise<Response> =>
    fetch(`${issuer}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}` },
      body: new URLSearchParams(body).toString(),
    })

  const running: RunningIssuer = {
    issuer,
    get mode() {
      return state.mode
    },
    set mode(mode: IssuerMode) {
      state.mode = mode
      // A switch to "refuse" also ends kept-alive connections, so the next request is refused.
      if (mode === 'refuse') for (const socket of sockets) socket.destroy()
    },
    hits,
    overrides,
    get keys() {
      return keys
    },
    async token(resource, scope) {
      const response = await form('/token', { grant_type: 'client_credentials', resource, scope })
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string }
      if (response.status !== 200 || body.access_token === undefined) throw new Error(`token: ${response.status} ${body.error ?? ''} ${body.error_description ?? ''}`)
      return body.access_token
    },
    async revoke(token) {
      const response = await form('/token/revocation', { token })
      if (response.status !== 200) throw new Error(`revocation: ${response.status}`)
    },
    async rotate() {
      const key = await newKey()
      keys = [key, ...keys]
      instance = provider(issuer, keys)
      current = instance.callback()
      return key
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return running
}
