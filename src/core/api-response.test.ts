import { describe, expect, it } from 'vitest'
import { emptyResponse, jsonResponse, serializeBody, withHeaders } from './api-response.js'

describe('api-response', () => {
  it('jsonResponse sets DRF content type without charset', () => {
    const r = jsonResponse(201, { a: 1 }, [['X-A', '1']])
    expect(r.status).toBe(201)
    expect(r.headers).toEqual([
      ['Content-Type', 'application/json'],
      ['X-A', '1'],
    ])
    expect(serializeBody(r)).toBe('{"a":1}')
  })
  it('emptyResponse has no body and strings pass through unchanged', () => {
    expect(serializeBody(emptyResponse(204))).toBeUndefined()
    expect(serializeBody({ status: 200, headers: [], body: '<p>x</p>' })).toBe('<p>x</p>')
  })
  it('withHeaders appends without mutating', () => {
    const base = jsonResponse(200, [])
    const more = withHeaders(base, [['Set-Cookie', 'a=1']])
    expect(base.headers).toHaveLength(1)
    expect(more.headers).toHaveLength(2)
  })
})
