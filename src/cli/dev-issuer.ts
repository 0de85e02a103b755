/**
 * `drf-gatehouse dev-issuer`: a token issuer for trying JWT and OAuth 2.0 on one machine,
 * FOR DEVELOPMENT ONLY. It serves an OpenID discovery document, its JWKS and a token endpoint
 * that mints an RS256 access token for whatever subject and scopes it is asked (no client
 * authentication, no user, no consent): anyone who can reach it can mint a valid token. So it
 * listens on 127.0.0.1 only, and its key lives in memory (a new key at every start).
 *
 * One token shape serves both schemes: RFC 9068's access-token claims (`iss`, `sub`, `aud`,
 * `client_id`, `scope`, `jti`, typed `at+jwt`) for `OAuth2Authentication`, plus simplejwt's
 * `token_type: "access"` and `user_id` for a `JwtCodec` verifying by `jwkUrl`.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose'

/** Options of `startDevIssuer`. */
export interface DevIssuerOptions {
  /** The port on 127.0.0.1; 0 picks a free one. */
  readonly port: number
  /** The `aud` of the tokens it mints, unless a request names another. */
  readonly audience: string
  /** Seconds a token lives, unless a request asks for fewer or more (at most a day). */
  readonly expiresIn: number
}

/** A running dev issuer. */
export interface DevIssuer {
  /** `http://127.0.0.1:<port>`: the `iss` of its tokens and the `issuer` to configure. */
  readonly issuer: string
  readonly jwksUri: string
  readonly tokenEndpoint: string
  close(): Promise<void>
}

/** The longest body the token endpoint reads: its few parameters fit many times over. */
const MAX_BODY_BYTES = 16 * 1024
const MAX_LIFETIME_SECONDS = 86_400
const CLIENT_ID = 'gatehouse-dev-issuer'
const ALGORITHM = 'RS256'

class BadRequest extends Error {}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  response.end(JSON.stringify(body))
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw new BadRequest(`the body is over ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The token request's parameters, from a form (as OAuth 2.0's token endpoint takes them) or a JSON object. */
async function tokenParameters(request: IncomingMessage): Promise<Map<string, string>> {
  const text = await readBody(request)
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  if (type === 'application/json') {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new BadRequest('the body is not JSON')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadRequest('the body must be a JSON object')
    return new Map(Object.entries(parsed).flatMap(([key, value]) => (typeof value === 'string' || typeof value === 'number' ? [[key, String(value)]] : [])))
  }
  return new Map(new URLSearchParams(text))
}

/**
 * Starts the issuer on 127.0.0.1. `GET /.well-known/openid-configuration`, `GET /jwks`, and
 * `POST /token` with `sub` (default `dev-user`), `scope` (space-separated), `aud`, `user_id`
 * (default: `sub`) and `expires_in`, which answers `{"access_token", "token_type": "Bearer",
 * "expires_in", "scope"}`.
 */
export async function startDevIssuer(options: DevIssuerOptions): Promise<DevIssuer> {
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM)
  const publicJwk: JWK = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(publicJwk)
  const jwks = { keys: [{ ...publicJwk, kid, alg: ALGORITHM, use: 'sig' }] }
  let issuer = ''

  const mint = async (parameters: Map<string, string>): Promise<Record<string, unknown>> => {
    const sub = parameters.get('sub') ?? 'dev-user'
    const scope = parameters.get('scope') ?? ''
    const lifetime = parameters.has('expires_in') ? Number(parameters.get('expires_in')) : options.expiresIn
    if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > MAX_LIFETIME_SECONDS) throw new BadRequest(`expires_in must be a whole number of seconds from 1 to ${MAX_LIFETIME_SECONDS}`)
    const claims: Record<string, unknown> = { client_id: CLIENT_ID, token_type: 'access', user_id: parameters.get('user_id') ?? sub }
    if (scope !== '') claims['scope'] = scope
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(sub)
      .setAudience(parameters.get('aud') ?? options.audience)
      .setIssuedAt()
      .setExpirationTime(`${lifetime}s`)
      .setJti(randomUUID())
      .sign(privateKey)
    return { access_token: token, token_type: 'Bearer', expires_in: lifetime, ...(scope === '' ? {} : { scope }) }
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', issuer).pathname
    void (async () => {
      if (request.method === 'GET' && path === '/.well-known/openid-configuration') {
        return send(response, 200, {
          issuer,
          jwks_uri: `${issuer}/jwks`,
          token_endpoint: `${issuer}/token`,
          grant_types_supported: ['client_credentials'],
          response_types_supported: ['token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [ALGORITHM],
        })
      }
      if (request.method === 'GET' && path === '/jwks') return send(response, 200, jwks)
      if (path === '/token') {
        if (request.method !== 'POST') return send(response, 405, { error: 'invalid_request', error_description: 'POST the token request' })
        return send(response, 200, await mint(await tokenParameters(request)))
      }
      return send(response, 404, { error: 'not_found' })
    })().catch((error: unknown) => {
      if (error instanceof BadRequest) send(response, 400, { error: 'invalid_request', error_description: error.message })
      else send(response, 500, { error: 'server_error' })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
