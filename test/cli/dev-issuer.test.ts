/**
 * The "try it locally" recipe of docs/oauth2.md and docs/jwt.md, end to end: `drf-gatehouse
 * dev-issuer` started as a process, a token minted from its token endpoint with curl's form
 * body, then gatehouse routes (OAuth2Authentication, and a JwtCodec verifying by `jwkUrl`)
 * configured as the docs show answer 200 with it and 401 with a tampered copy.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { createApi, jsonResponse, route, IsAuthenticated, type RequestContext, type Route } from 'drf-gatehouse'
import { JwtCodec, JWTStatelessUserAuthentication, resolveJwtSettings } from 'drf-gatehouse/jwt'
import { OAuth2Authentication, TokenHasScope } from 'drf-gatehouse/oauth2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnCli } from '../helpers/cli-process.js'
import { startRoutes, type RunningRoutes } from '../helpers/routes-server.js'

let issuerProcess: ChildProcessWithoutNullStreams
let issuer: string
let output = ''
let server: RunningRoutes

/** The issuer's URL, from the line the command prints once it listens. */
function issuerUrl(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const found = /^issuer +(http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1]
      if (found !== undefined) resolve(found)
    })
    child.stderr.on('data', (chunk: Buffer) => reject(new Error(`dev-issuer wrote to stderr: ${chunk.toString('utf8')}`)))
    child.once('exit', (code) => reject(new Error(`dev-issuer exited with ${String(code)}: ${output}`)))
  })
}

/** The token endpoint's answer to the docs' curl (`-d sub=alice -d 'scope=…'`, a form body). */
async function mint(fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${issuer}/token`, { method: 'POST', body: new URLSearchParams(fields) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** The token with one character of its signature changed. */
function tampered(token: string): string {
  const last = token.at(-2) === 'A' ? 'B' : 'A'
  return `${token.slice(0, -2)}${last}${token.slice(-1)}`
}

beforeAll(async () => {
  issuerProcess = await spawnCli(['dev-issuer', '--port', '0'])
  issuer = await issuerUrl(issuerProcess)
  // The routes as the docs configure them.
  const oauth2 = new OAuth2Authentication({ issuer, audience: 'gatehouse-dev' })
  const codec = new JwtCodec(resolveJwtSettings({ algorithm: 'RS256', jwkUrl: `${issuer}/jwks`, allowInsecureJwkUrl: true, audience: 'gatehouse-dev', issuer }))
  const jwt = new JWTStatelessUserAuthentication({ codec })
  const whoami = async (ctx: RequestContext) => jsonResponse(200, { user: ctx.user.username, id: ctx.user.id })
  const routes: Route[] = [
    route('/api/notes/', createApi({ authentication: [oauth2] }).view({ handlers: { GET: whoami }, permissions: [new TokenHasScope('notes:read')] })),
    route('/api/me/', createApi({ authentication: [jwt], permissions: [new IsAuthenticated()] }).view({ handlers: { GET: whoami } })),
  ]
  server = await startRoutes('node', routes)
}, 120_000)

afterAll(async () => {
  await server?.close()
  issuerProcess?.kill()
})

const get = async (path: string, token: string): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
  return { status: response.status, body: await response.json() }
}

describe('drf-gatehouse dev-issuer', () => {
  it('says it is for development only, and serves discovery and a JWKS naming itself', async () => {
    expect(output).toContain('FOR DEVELOPMENT ONLY')
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>
    expect(discovery).toMatchObject({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` })
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] }
    expect(jwks.keys).toHaveLength(1)
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' })
    expect(jwks.keys[0]).not.toHaveProperty('d')
  })

  it('mints a token an OAuth 2.0 resource-server route accepts (200); tampered, a wrong scope or another audience: 401/403', async () => {
    const minted = await mint({ sub: 'alice', scope: 'notes:read notes:write' })
    expect(minted.status).toBe(200)
    expect(minted.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'notes:read notes:write' })
    const token = String(minted.body['access_token'])
    expect(await get('/api/notes/', token)).toEqual({ status: 200, body: { user: 'alice', id: 'alice' } })
    expect((await get('/api/notes/', tampered(token))).status).toBe(401)
    expect((await get('/api/notes/', String((await mint({ sub: 'alice', scope: 'other' })).body['access_token']))).status).toBe(403)
    expect((await get('/api/notes/', String((await mint({ sub: 'alice', scope: 'notes:read', aud: 'another-api' })).body['access_token']))).status).toBe(401)
  })

  it('mints a token a JWT route verifying by jwkUrl accepts (200, the user_id claim); tampered: 401', async () => {
    const token = String((await mint({ sub: 'alice', user_id: '42' })).body['access_token'])
    const answer = await get('/api/me/', token)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ id: '42' })
    expect(await get('/api/me/', tampered(token))).toMatchObject({ status: 401, body: { code: 'token_not_valid' } })
  })

  it('answers a bad token request 400, never a token', async () => {
    expect(await mint({ sub: 'alice', expires_in: '-5' })).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    const tooBig = await fetch(`${issuer}/token`, { method: 'POST', body: 'a='.padEnd(20_000, 'x') })
    expect(tooBig.status).toBe(400)
    expect((await fetch(`${issuer}/token`)).status).toBe(405)
  })
})
