/**
 * The OAuth 2.0 resource-server routes of reference-api.md over real HTTP on each framework,
 * against a running OpenID provider (oidc-provider): `GATEHOUSE_OAUTH_ISSUER`, `_AUDIENCE` and
 * `_INTROSPECTION` turn on `/api/schemes/oauth2/` (scope `read`) and `/api/schemes/oauth2-write/`
 * (scope `write`); statuses, bodies and `WWW-Authenticate` values as the document says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { referenceConfigFromEnv } from '../../examples/reference-api/context.js'
import { freshSqlite } from '../helpers/databases.js'
import { CLIENT, JWT_API, OPAQUE_API, OTHER_API, RESOURCE_SERVER, startIssuer, type RunningIssuer } from '../helpers/oidc-issuer.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { send, type ExchangeResult } from '../oracle/http-exchange.js'

const CHALLENGE = 'Bearer realm="api"'

describe('OAuth 2.0 resource server routes', () => {
  let issuer: RunningIssuer
  let server: RunningReference
  const get = (authorization?: string, path = '/api/schemes/oauth2/'): Promise<ExchangeResult> =>
    send(server.baseUrl, 'GET', path, authorization === undefined ? {} : { Authorization: authorization })
  const post = (authorization: string): Promise<ExchangeResult> => send(server.baseUrl, 'POST', '/api/schemes/oauth2-write/', { Authorization: authorization })
  const me = (access: string): unknown => ({ username: CLIENT.id, authenticated: true, auth: access })

  beforeAll(async () => {
    issuer = await startIssuer()
    // Configured as the serve command reads it, from the environment.
    const config = referenceConfigFromEnv({
      GATEHOUSE_OAUTH_ISSUER: issuer.issuer,
      GATEHOUSE_OAUTH_AUDIENCE: `${JWT_API},${OPAQUE_API}`,
      GATEHOUSE_OAUTH_INTROSPECTION: `${RESOURCE_SERVER.id}:${RESOURCE_SERVER.secret}`,
    })
    server = await startReference(freshSqlite(), { oauth2: config.oauth2 })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await issuer?.close()
  })

  it('a JWT access token with scope read: 200, the whoami body with the client as username and the raw token as auth', async () => {
    const access = await issuer.token(JWT_API, 'read')
    const ok = await get(`Bearer ${access}`)
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual(me(access))
    const write = await issuer.token(JWT_API, 'read write')
    const posted = await post(`Bearer ${write}`)
    expect(posted.status).toBe(200)
    expect(posted.body).toEqual(me(write))
  })

  it('an opaque token through introspection: 200 on both routes with the scopes it has', async () => {
    const opaque = await issuer.token(OPAQUE_API, 'read write')
    expect((await get(`Bearer ${opaque}`)).body).toEqual(me(opaque))
    expect((await post(`Bearer ${opaque}`)).body).toEqual(me(opaque))
  })

  it('no token: 401 with the bare challenge; a bad, foreign or inactive token: 401 invalid_token', async () => {
    const none = await get()
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ detail: 'Authentication credentials were not provided.' })
    expect(none.headers['www-authenticate']).toBe(CHALLENGE)
    const access = await issuer.token(JWT_API, 'read')
    for (const token of [`${access.slice(0, -6)}AAAAAA`, await issuer.token(OTHER_API, 'read'), 'never-issued-opaque-token']) {
      const refused = await get(`Bearer ${token}`)
      expect(refused.status, token.slice(0, 12)).toBe(401)
      // shared/reference-api.md's value: no error_description unless the scheme is told to add one.
      expect(refused.headers['www-authenticate'], token.slice(0, 12)).toBe('Bearer realm="api", error="invalid_token"')
    }
  })

  it('a valid token without the scope: 403 with RFC 6750\'s insufficient_scope challenge', async () => {
    const readOnly = await issuer.token(JWT_API, 'read')
    const refused = await post(`Bearer ${readOnly}`)
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ detail: 'You do not have permission to perform this action.' })
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="write"')
    const writeOnly = await issuer.token(OPAQUE_API, 'write')
    expect((await get(`Bearer ${writeOnly}`)).headers['www-authenticate']).toBe('Bearer realm="api", error="insufficient_scope", scope="read"')
  })

  it('the OpenAPI document describes the scheme as openIdConnect with the route\'s scope', async () => {
    const document = (await get(undefined, '/api/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown }>>; components: { securitySchemes: Record<string, { type?: string }> } }
    expect(document.paths['/api/schemes/oauth2/']?.['get']?.security).toEqual([{ oauth2: ['read'] }])
    expect(document.paths['/api/schemes/oauth2-write/']?.['post']?.security).toEqual([{ oauth2: ['write'] }])
    expect(document.components.securitySchemes['oauth2']?.type).toBe('openIdConnect')
  })

  it('the provider down with nothing cached for the token: 503 with DRF\'s body, not a 500', async () => {
    const opaque = await issuer.token(OPAQUE_API, 'read')
    issuer.mode = '503'
    try {
      const answer = await get(`Bearer ${opaque}`)
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({ detail: 'The authorization server is unavailable, try again later.' })
    } finally {
      issuer.mode = 'up'
    }
  })
})
