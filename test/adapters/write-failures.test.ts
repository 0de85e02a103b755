/**
 * Issue 36 item 1: a response HTTP cannot carry (a header value Node refuses) never stops the
 * server. On every adapter — a view mounted with `mountRoutes`, a refusal of `policies()`, and
 * the app's own handler answering with `sendApiResponse` — the answer is the
 * same `500 {"detail": "A server error occurred."}`, the failure is logged once through the
 * route's `logError`, no promise is left rejected, and the server answers the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AllowAny, createApi, emptyResponse, IsAuthenticated, jsonResponse, route, type ApiResponse, type AuthenticationScheme } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'
import { FOUR, rawRequest, startFour, type FourServers } from './four-servers.js'

/** Anonymous requests are refused with a challenge Node cannot send. */
const badChallenge: AuthenticationScheme = {
  async authenticate() {
    return null
  },
  authenticateHeader: () => 'Bearer realm="\u20ac"',
}

const logged: unknown[] = []
const api = createApi({ authentication: [], logError: (error) => logged.push(error) })

/** Location values Node's `setHeader` refuses (`ERR_INVALID_CHAR`): the admin's `next=/admin/%E2%82%AC` and a DEL. */
const BAD: Readonly<Record<string, ApiResponse>> = {
  euro: emptyResponse(302, [['Location', '/admin/\u20ac']]),
  del: emptyResponse(302, [['Location', '/admin/\x7f']]),
  newline: jsonResponse(200, {}, [['X-Note', 'a\r\nSet-Cookie: x=1']]),
}
const views = Object.entries(BAD).map(([name, response]) => route(`/${name}/`, api.view({ name, handlers: { GET: async () => response } })))
const ok = route('/ok/', api.view({ name: 'ok', handlers: { GET: async () => jsonResponse(200, { ok: true }) } }))
const routes = [...views, ok]
const refusing = { authentication: [badChallenge], permissions: [new IsAuthenticated()] }
const open = { permissions: [new AllowAny()] }

let servers: FourServers
const rejections: unknown[] = []
const onRejection = (reason: unknown): void => void rejections.push(reason)

beforeAll(async () => {
  process.on('unhandledRejection', onRejection)
  servers = await startFour({
    async fastify(app) {
      await fa.mountRoutes(app, routes)
      await app.register(fa.gatehouse, {
        api,
        plugin: async (scope) => {
          scope.get('/refused/', { preHandler: fa.policies(api, refusing) }, async () => ({}))
          scope.get('/own/', { preHandler: fa.policies(api, open) }, async (_request, reply) => fa.sendApiResponse(reply, BAD['euro'] as ApiResponse))
        },
      })
    },
    express(app) {
      ex.mountRoutes(app, routes)
      app.get('/refused/', ex.policies(api, refusing), (_req, res) => void res.end())
      app.get('/own/', ex.policies(api, open), (_req, res) => ex.sendApiResponse(res, BAD['euro'] as ApiResponse))
      app.use(ex.errorHandler(api))
    },
    hono(app) {
      ho.mountRoutes(app, routes)
      app.get('/refused/', ho.policies(api, refusing), (c) => c.body(null))
      app.get('/own/', ho.policies(api, open), (c) => ho.sendApiResponse(c, BAD['euro'] as ApiResponse))
      app.onError(ho.errorHandler(api))
    },
    node() {
      const routed = no.router(routes)
      const refused = no.policies(api, refusing)((_req, res) => void res.end())
      const own = no.policies(api, open)((_req, res) => no.sendApiResponse(res, BAD['euro'] as ApiResponse))
      return (req, res) => {
        if (req.url === '/refused/') return void refused(req, res)
        if (req.url === '/own/') return void own(req, res)
        void routed(req, res)
      }
    },
  })
})

afterAll(async () => {
  process.off('unhandledRejection', onRejection)
  await servers.close()
})

const SERVER_ERROR = {
  status: 500,
  headers: ['content-length: 37', 'content-type: application/json'],
  body: '{"detail":"A server error occurred."}',
}

describe('a response with a header Node refuses', () => {
  for (const adapter of FOUR) {
    it.each(['/euro/', '/del/', '/newline/', '/refused/', '/own/'])(`is a logged 500 on ${adapter} (%s), and the server answers the next request`, async (path) => {
      const port = servers.ports.get(adapter) as number
      logged.length = 0
      expect(await rawRequest(port, 'GET', path, { Host: 'localhost' })).toEqual(SERVER_ERROR)
      expect(logged).toHaveLength(1)
      // The value is not in the log line (it may carry a client's input).
      expect(String(logged[0])).not.toMatch(/\u20ac|\x7f|x=1/)
      const next = await rawRequest(port, 'GET', '/ok/', { Host: 'localhost' })
      expect(next?.status).toBe(200)
      expect(next?.body).toBe('{"ok":true}')
      // Let a stray rejection surface before checking.
      await new Promise((resolve) => setImmediate(resolve))
      expect(rejections).toEqual([])
    })
  }
})
