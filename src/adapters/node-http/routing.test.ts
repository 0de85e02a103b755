import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import type { AuthenticationScheme } from '../../core/authentication-scheme.js'
import { ValidationError } from '../../core/errors.js'
import type { Permission } from '../../core/permission.js'
import { route } from '../../core/route.js'
import { router, policies, requestContext } from './index.js'

/** `X-User: name` authenticates as that user; the challenge makes refusals 401s. */
const headerScheme: AuthenticationScheme = {
  async authenticate(req) {
    const name = req.headers.get('x-user')
    if (name === null) return null
    return { user: { id: 1, username: name, isActive: true, isStaff: false, isAuthenticated: true }, auth: null }
  },
  authenticateHeader: () => 'X-User',
}
const authenticated: Permission = { hasPermission: (ctx) => ctx.user.isAuthenticated }

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('node:http router with path parameters', () => {
  const api = createApi()
  const book = api.view({ name: 'Book', handlers: { GET: async (ctx) => jsonResponse(200, { id: ctx.params['id'], same: ctx.request.params['id'] }) } })
  const books = api.view({ name: 'Books', handlers: { GET: async () => jsonResponse(200, []) } })
  const server = createServer(router([route('/books/', books), route('/books/:id/', book)]))
  let base = ''
  beforeAll(async () => {
    base = await listen(server)
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('hands the decoded parameter to the handler', async () => {
    const res = await fetch(`${base}/books/a%20b/`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: 'a b', same: 'a b' })
  })

  it('routes on the decoded path as Django does: escaped letters match, %2F is a slash, broken escapes stay literal', async () => {
    expect(await (await fetch(`${base}/b%6Foks/`)).json()).toEqual([])
    const broken = await fetch(`${base}/books/%E0%A4%A/`)
    expect(await broken.json()).toEqual({ id: '\uFFFD%A', same: '\uFFFD%A' })
    const slash = await fetch(`${base}/books/a%2Fb/`)
    expect(slash.status).toBe(404)
  })

  it('prefers the exact route, and answers 404 for an empty segment or a missing slash', async () => {
    expect(await (await fetch(`${base}/books/`)).json()).toEqual([])
    for (const path of ['/books//', '/books/7', '/books/7/x/']) {
      const res = await fetch(`${base}${path}`)
      expect(res.status, path).toBe(404)
      expect(await res.json()).toEqual({ detail: 'Not found.' })
    }
  })
})

describe('node:http middleware style (policies)', () => {
  const api = createApi({ authentication: [headerScheme] })
  const routePolicies = api.policies({ name: 'me', permissions: [authenticated] })
  const server = createServer(
    policies(routePolicies)((req, out) => {
      const state = requestContext(req)
      if (state.request.url.searchParams.has('invalid')) throw new ValidationError({ title: ['This field is required.'] })
      if (state.request.url.searchParams.has('crash')) throw new Error('app bug')
      out.setHeader('Content-Type', 'application/json')
      out.end(JSON.stringify({ username: state.user.username }))
    }),
  )
  let base = ''
  beforeAll(async () => {
    base = await listen(server)
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('runs the app handler with the identified user', async () => {
    const res = await fetch(`${base}/me`, { headers: { 'X-User': 'alice' } })
    expect(await res.json()).toEqual({ username: 'alice' })
  })

  it('answers a refused anonymous request with 401 and the first scheme challenge', async () => {
    const res = await fetch(`${base}/me`)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('X-User')
    expect(await res.json()).toEqual({ detail: 'Authentication credentials were not provided.' })
  })

  it('renders an ApiError thrown by the app handler in DRF shape, and any other error as DRF\'s 500', async () => {
    const invalid = await fetch(`${base}/me?invalid`, { headers: { 'X-User': 'alice' } })
    expect(invalid.status).toBe(400)
    expect(await invalid.json()).toEqual({ title: ['This field is required.'] })
    const crash = await fetch(`${base}/me?crash`, { headers: { 'X-User': 'alice' } })
    expect(crash.status).toBe(500)
    expect(crash.headers.get('content-type')).toBe('application/json')
    expect(await crash.json()).toEqual({ detail: 'A server error occurred.' })
  })
})

describe('node:http policies() path parameters (issue 31 item 2)', () => {
  const api = createApi({ authentication: [headerScheme] })
  const show = (req: Parameters<typeof requestContext>[0], out: import('node:http').ServerResponse): void => {
    out.setHeader('Content-Type', 'application/json')
    out.end(JSON.stringify(requestContext(req).params))
  }
  const byPattern = policies(api, { path: '/books/:id/', permissions: [authenticated] })(show)
  const byCaller = policies(api, { permissions: [authenticated] })(show)
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/mine/') === true) return void byCaller(req, res, { id: req.url.split('/')[2] ?? '' })
    return void byPattern(req, res)
  })
  let base = ''
  beforeAll(async () => {
    base = await listen(server)
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('fills params from the route pattern, percent-decoded, and answers DRF\'s 404 for a path it does not match', async () => {
    const alice = { headers: { 'X-User': 'alice' } }
    expect(await (await fetch(`${base}/books/7/`, alice)).json()).toEqual({ id: '7' })
    expect(await (await fetch(`${base}/books/a%20b/`, alice)).json()).toEqual({ id: 'a b' })
    const miss = await fetch(`${base}/books/7`, alice)
    expect(miss.status).toBe(404)
    expect(await miss.json()).toEqual({ detail: 'Not found.' })
    // The refusal still comes from the policies on a matching path.
    expect((await fetch(`${base}/books/7/`)).status).toBe(401)
  })

  it('takes the params the caller matched', async () => {
    expect(await (await fetch(`${base}/mine/42/`, { headers: { 'X-User': 'alice' } })).json()).toEqual({ id: '42' })
  })
})
