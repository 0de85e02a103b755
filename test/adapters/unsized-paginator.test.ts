/**
 * Issue 41 item 1 on the four adapters: an own route given a paginator with no page size, on an
 * API with no pageSize setting, fails when the route is built (ERR_NO_PAGE_SIZE, naming the
 * setting) instead of answering every row; `pagination: null` still asks for the whole list.
 */
import { ConfigurationError, createApi, CursorPagination, PageNumberPagination, type Api, type PolicyOptions } from 'drf-gatehouse'
import * as ex from 'drf-gatehouse/express'
import * as fa from 'drf-gatehouse/fastify'
import * as ho from 'drf-gatehouse/hono'
import * as no from 'drf-gatehouse/node'
import { describe, expect, it } from 'vitest'

const SECRET = 'unsized-paginator-test-secret-0123456789abcdef'
type BuildPolicies = (api: Api, options: PolicyOptions) => unknown
const POLICIES: Readonly<Record<string, BuildPolicies>> = {
  fastify: (api, options) => fa.policies(api, options),
  express: (api, options) => ex.policies(api, options),
  hono: (api, options) => ho.policies(api, options),
  node: (api, options) => no.policies(api, options),
}

function thrown(build: () => unknown): unknown {
  try {
    build()
  } catch (error) {
    return error
  }
  return undefined
}

describe.each(Object.entries(POLICIES))('%s policies()', (_, policies) => {
  it('refuses a cursor paginator with no page size when the API has none', () => {
    const api = createApi()
    const error = thrown(() => policies(api, { pagination: new CursorPagination({ secret: SECRET, ordering: '-created' }) }))
    expect(error).toBeInstanceOf(ConfigurationError)
    expect((error as ConfigurationError).code).toBe('ERR_NO_PAGE_SIZE')
    expect((error as Error).message).toMatch(/CursorPagination has no page size.*pageSize setting \(DRF's PAGE_SIZE\)/)
  })

  it('refuses a page-number paginator with no page size the same way', () => {
    const error = thrown(() => policies(createApi(), { pagination: new PageNumberPagination() }))
    expect((error as ConfigurationError | undefined)?.code).toBe('ERR_NO_PAGE_SIZE')
  })

  it('builds the route when the paginator, the API setting or pagination: null says what to do', () => {
    expect(thrown(() => policies(createApi(), { pagination: new CursorPagination({ secret: SECRET, ordering: '-created', pageSize: 20 }) }))).toBeUndefined()
    expect(thrown(() => policies(createApi({ pageSize: 20 }), { pagination: new CursorPagination({ secret: SECRET, ordering: '-created' }) }))).toBeUndefined()
    expect(thrown(() => policies(createApi(), { pagination: null }))).toBeUndefined()
  })
})
