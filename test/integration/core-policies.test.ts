import { describe, expect, it } from 'vitest'
import { buildRequest } from '../helpers/build-request.js'
import { ScopedRateThrottle } from '../../src/throttling/scoped-rate-throttle.js'
import { MemoryThrottleStore } from '../../src/throttling/memory-throttle-store.js'
import { withHeaders } from '../../src/core/api-response.js'
import { createApi } from '../../src/core/api.js'
import { ConfigurationError, NotFound } from '../../src/core/errors.js'
import { renderApiError, type ExceptionHandler } from '../../src/core/exception-handler.js'
import { matchRoutes, route } from '../../src/core/route.js'

const handlers = { GET: async () => ({ status: 200, headers: [], body: {} }) }

describe('configuration is checked when a route is declared', () => {
  it('a throttle scope with no rate stops declaration, not the first request', () => {
    const throttle = new ScopedRateThrottle({ store: new MemoryThrottleStore(), rates: { uploads: '5/min' } })
    const api = createApi({ throttles: [throttle] })
    expect(() => api.view({ name: 'up', throttleScope: 'uploads', handlers })).not.toThrow()
    expect(() => api.policies({ name: 'dl', throttleScope: 'downloads' })).toThrow(ConfigurationError)
    expect(() => api.view({ name: 'dl', throttleScope: 'downloads', handlers })).toThrow(/No default throttle rate set for 'downloads' scope/)
  })

  it('a misspelt policy option is an error naming it', () => {
    const api = createApi()
    expect(() => api.policies({ permision: [] } as never)).toThrow(/unknown setting "permision"/)
  })

  it('route paths a framework would read differently are refused', () => {
    const view = createApi().view({ handlers })
    for (const path of ['books/', '/books/*', '/books/:id?/', '/a/:1x/', '/a/:id/:id/', '/a/(x)/']) {
      expect(() => route(path, view), path).toThrow(ConfigurationError)
    }
    expect(route('/books/:book_id/pages/:page/', view).path).toBe('/books/:book_id/pages/:page/')
  })

  it('matchRoutes decodes parameters and tries routes in declaration order', () => {
    const view = createApi().view({ handlers })
    const match = matchRoutes([route('/a/:x/', view), route('/a/:y/', view)])
    expect(match('/a/%C3%A9/')?.params).toEqual({ x: 'é' })
    expect(match('/a/')).toBeNull()
  })
})

describe('the exceptionHandler setting (DRF EXCEPTION_HANDLER)', () => {
  it('shapes every error answer of a view, and null falls back to a logged 500', async () => {
    const logged: unknown[] = []
    const exceptionHandler: ExceptionHandler = (error, ctx) => {
      const response = renderApiError(error, ctx)
      return response === null ? null : withHeaders(response, [['X-Handled', 'yes']])
    }
    const api = createApi({ exceptionHandler, logError: (error) => logged.push(error) })
    const view = api.view({
      handlers: {
        GET: async (ctx) => {
          if (ctx.request.url.searchParams.has('boom')) throw new Error('bug')
          throw new NotFound()
        },
      },
    })
    const notFound = await view.handle(buildRequest({ url: 'http://h/x/' }))
    expect(notFound.status).toBe(404)
    expect(notFound.headers).toContainEqual(['X-Handled', 'yes'])
    const boom = await view.handle(buildRequest({ url: 'http://h/x/?boom' }))
    expect(boom.status).toBe(500)
    expect(boom.body).toEqual({ detail: 'A server error occurred.' })
    expect(logged).toHaveLength(1)
  })
})
