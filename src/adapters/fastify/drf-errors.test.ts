/**
 * `drfErrors`: the app's own Fastify routes, outside gatehouse's scopes, answer a malformed
 * JSON body with DRF's exact 400 while well-formed JSON keeps Fastify's own parse.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createApi } from '../../core/api.js'
import { ParseError } from '../../core/errors.js'
import { parseBody } from '../../core/request/body-parser.js'
import { IsAuthenticated } from '../../permissions/is-authenticated.js'
import { drfErrors, errorHandler, gatehouse, policies } from './index.js'

const api = createApi()

async function appWith(register: boolean): Promise<FastifyInstance> {
  const app = Fastify()
  if (register) await app.register(drfErrors, { api })
  else app.setErrorHandler(errorHandler(api))
  app.post('/open/', async (request) => ({ received: request.body }))
  app.post('/schema/', { schema: { body: { type: 'object', required: ['title'] } } }, async (request) => ({ received: request.body }))
  app.post('/guarded/', { preHandler: policies(api, { permissions: [new IsAuthenticated()] }) }, async (request) => ({ received: request.body }))
  await app.register(gatehouse, {
    api,
    plugin: async (scope) => {
      // In the plugin's scope but without policies: DRF's parser, and its error before the handler.
      scope.post('/unguarded-in-plugin/', async (request) => ({ received: request.body }))
    },
  })
  return app
}

async function post(app: FastifyInstance, url: string, payload: string, contentType = 'application/json'): Promise<{ status: number; body: string; vary: unknown }> {
  const response = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } })
  return { status: response.statusCode, body: response.body, vary: response.headers['vary'] }
}

/** DRF's answer to `text` as a JSON body, from the core's parser. */
async function drfAnswer(text: string): Promise<string | null> {
  try {
    await parseBody('application/json', new TextEncoder().encode(text))
    return null
  } catch (error) {
    if (error instanceof ParseError) return JSON.stringify({ detail: error.detail })
    throw error
  }
}

describe('drfErrors on the root instance', () => {
  it("a malformed JSON body is DRF's exact 400 on the app's own routes, with or without a schema", async () => {
    const app = await appWith(true)
    for (const url of ['/open/', '/schema/', '/unguarded-in-plugin/']) {
      const answer = await post(app, url, '{"title": ')
      expect({ url, ...answer }).toEqual({ url, status: 400, body: '{"detail":"JSON parse error - Expecting value: line 1 column 11 (char 10)"}', vary: undefined })
    }
    await app.close()
  })

  it('a guarded route answers the refusal first, then the parse error', async () => {
    const app = await appWith(true)
    // No authentication scheme at all: DRF's PermissionDenied, before the body is read.
    expect(await post(app, '/guarded/', '{"title": ')).toMatchObject({ status: 403, body: '{"detail":"You do not have permission to perform this action."}' })
    await app.close()
  })

  it("well-formed JSON is Fastify's own parse, the schema still applies, and NaN is refused as DRF refuses it", async () => {
    const app = await appWith(true)
    expect(await post(app, '/open/', '{"a": [1, 2.5, "x"]}')).toMatchObject({ status: 200, body: '{"received":{"a":[1,2.5,"x"]}}' })
    expect((await post(app, '/schema/', '{"other": 1}')).status).toBe(400)
    expect(await post(app, '/open/', '{"a": NaN}')).toMatchObject({ status: 400, body: '{"detail":"JSON parse error - Out of range float values are not JSON compliant: \'NaN\'"}' })
    await app.close()
  })

  it("a body refused only for __proto__ keeps Fastify's answer (the app's onProtoPoisoning)", async () => {
    const app = await appWith(true)
    const answer = await post(app, '/open/', '{"__proto__": {"admin": true}}')
    expect(answer.status).toBe(400)
    expect(answer.body).toBe('{"detail":"Malformed request."}')
    await app.close()
  })

  it('without drfErrors, errorHandler alone answers Fastify\'s parse failure as "Malformed request." (the text is gone)', async () => {
    const app = await appWith(false)
    expect(await post(app, '/open/', '{"title": ')).toMatchObject({ status: 400, body: '{"detail":"Malformed request."}' })
    await app.close()
  })

  it("any malformed body: the root route answers exactly what DRF's parser says (property)", async () => {
    const app = await appWith(true)
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json().map((json) => json.slice(0, Math.max(1, json.length - 1)))), async (text) => {
        if (text.trim() === '') return // An empty body is Fastify's own refusal, as before.
        const expected = await drfAnswer(text)
        let jsonParses = true
        try {
          JSON.parse(text)
        } catch {
          jsonParses = false
        }
        const answer = await post(app, '/open/', text)
        if (jsonParses) expect(answer.status).not.toBe(500)
        else if (expected === null) expect(answer.status).toBe(200)
        else expect(answer).toEqual({ status: 400, body: expected, vary: undefined })
      }),
      { numRuns: 200 },
    )
    await app.close()
  })
})
