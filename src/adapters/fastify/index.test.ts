import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { jsonResponse } from '../../core/api-response.js'
import { createApi } from '../../core/api.js'
import { route } from '../../core/route.js'
import { mountRoutes } from './index.js'

async function app(): Promise<ReturnType<typeof Fastify>> {
  const fastify = Fastify()
  const api = createApi()
  await mountRoutes(fastify, [route('/x/', api.view({ name: 'X', handlers: { GET: async () => jsonResponse(200, { ok: true }) } }))])
  await fastify.ready()
  return fastify
}

describe('fastify adapter', () => {
  it('answers methods the view lacks with DRF 405, TRACE included', async () => {
    const fastify = await app()
    for (const method of ['TRACE', 'DELETE', 'PUT'] as const) {
      const response = await fastify.inject({ method, url: '/x/' })
      expect(response.statusCode).toBe(405)
      expect(response.json()).toEqual({ detail: `Method "${method}" not allowed.` })
      expect(response.headers['allow']).toBe('GET, HEAD, OPTIONS')
    }
  })

  it('sends bare application/json and DRF-shaped 404s for unknown paths', async () => {
    const fastify = await app()
    const ok = await fastify.inject({ method: 'GET', url: '/x/' })
    expect(ok.headers['content-type']).toBe('application/json')
    const missing = await fastify.inject({ method: 'GET', url: '/x' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toEqual({ detail: 'Not found.' })
  })
})
