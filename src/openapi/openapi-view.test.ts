import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { BasicAuthentication } from '../authentication/basic-authentication.js'
import { jsonResponse } from '../core/api-response.js'
import { createApi } from '../core/api.js'
import { route, type Route } from '../core/route.js'
import { AnonRateThrottle } from '../throttling/anon-rate-throttle.js'
import { MemoryThrottleStore } from '../throttling/memory-throttle-store.js'
import { openApiView } from './openapi-view.js'

const INFO = { title: 'Test', version: '1' }
const BOB = `Basic ${btoa('bob:bob-pass-2')}`

function app(): { routes: Route[]; doc: Route } {
  const api = createApi({
    authentication: [new BasicAuthentication({ users: new FakeUserStore() })],
    throttles: [new AnonRateThrottle({ store: new MemoryThrottleStore(), rate: '1/min' })],
  })
  const routes: Route[] = [route('/books/', api.view({ handlers: { GET: async () => jsonResponse(200, []) } }))]
  const doc = route('/openapi.json', api.view(openApiView({ routes: () => routes, info: INFO })))
  routes.push(doc)
  return { routes, doc }
}

const body = (res: { body: unknown }): Record<string, unknown> => JSON.parse(JSON.stringify(res.body)) as Record<string, unknown>

describe('openApiView', () => {
  it('writes the prefix it is mounted under as the server; the paths stay the routes\'', async () => {
    const { doc } = app()
    const prefixed = await doc.view.handle(buildRequest({ url: 'http://testserver/v1/openapi.json', headers: { authorization: BOB } }))
    expect(prefixed.status).toBe(200)
    const json = body(prefixed)
    expect(json['servers']).toEqual([{ url: '/v1' }])
    expect(Object.keys(json['paths'] as object)).toEqual(['/books/', '/openapi.json'])
    const plain = body(await doc.view.handle(buildRequest({ url: 'http://testserver/openapi.json', headers: { authorization: BOB } })))
    expect(plain['servers']).toEqual([{ url: '/' }])
  })

  it('authenticates like any other view: a bad credential is refused, and a user is not throttled as anonymous', async () => {
    const { doc } = app()
    const url = 'http://testserver/openapi.json'
    expect((await doc.view.handle(buildRequest({ url, headers: { authorization: `Basic ${btoa('bob:wrong')}` } }))).status).toBe(401)
    expect((await doc.view.handle(buildRequest({ url }))).status).toBe(200)
    expect((await doc.view.handle(buildRequest({ url }))).status).toBe(429)
    for (let i = 0; i < 3; i++) expect((await doc.view.handle(buildRequest({ url, headers: { authorization: BOB } }))).status).toBe(200)
  })
})
