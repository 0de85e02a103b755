/**
 * Path converters (`route(path, view, { params })`), as Django's `<int:pk>`, `<slug:…>`,
 * `<uuid:…>`: checked when declared, and a value the converter refuses matches no route.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createApi } from './api.js'
import { ConfigurationError } from './errors.js'
import { matchRoutes, route, routeParamsMatch } from './route.js'

const view = createApi().view({ handlers: { GET: async () => ({ status: 200, headers: [], body: {} }) } })

describe('route params', () => {
  it('are checked when the route is declared', () => {
    expect(() => route('/a/:id/', view, { params: { pk: 'int' } })).toThrow(ConfigurationError)
    expect(() => route('/a/:id/', view, { params: { id: 'integer' as never } })).toThrow(/int, slug, uuid, str or a function/)
    expect(route('/a/:id/', view, { params: { id: 'int' } }).params).toEqual({ id: 'int' })
  })

  it.each<[string, 'int' | 'slug' | 'uuid' | 'str', readonly string[], readonly string[]]>([
    ['int', 'int', ['0', '7', '007', '99999999999999999999'], ['', 'abc', '-1', '+1', '1.0', ' 1', '1 ', '١', '７', '1e3']],
    ['slug', 'slug', ['a', 'a-b_C9', '-'], ['', 'a b', 'é', 'a.b', 'a/b']],
    ['uuid', 'uuid', ['123e4567-e89b-12d3-a456-426614174000'], ['123E4567-E89B-12D3-A456-426614174000', '123e4567e89b12d3a456426614174000', 'x23e4567-e89b-12d3-a456-426614174000']],
    ['str', 'str', ['a', ' ', 'é'], ['']],
  ])('%s: matches what Django matches', (_name, kind, good, bad) => {
    const r = route('/a/:v/', view, { params: { v: kind } })
    for (const value of good) expect(routeParamsMatch(r, { v: value }), value).toBe(true)
    for (const value of bad) expect(routeParamsMatch(r, { v: value }), value).toBe(false)
  })

  it('int is exactly Python re [0-9]+ over any string', () => {
    const r = route('/a/:v/', view, { params: { v: 'int' } })
    fc.assert(fc.property(fc.string({ unit: 'grapheme-composite' }), (value) => routeParamsMatch(r, { v: value }) === /^[0-9]+$/.test(value)))
  })

  it('a function decides for its parameter', () => {
    const r = route('/a/:v/', view, { params: { v: (value) => value.startsWith('x') } })
    expect([routeParamsMatch(r, { v: 'xy' }), routeParamsMatch(r, { v: 'yx' })]).toEqual([true, false])
  })

  it('matchRoutes: a refused value is no match, and a later route may match it', () => {
    const byId = route('/items/:id/', view, { params: { id: 'int' } })
    const bySlug = route('/items/:slug/', view, { params: { slug: 'slug' } })
    const match = matchRoutes([byId, bySlug])
    expect(match('/items/%37/')).toEqual({ route: byId, params: { id: '7' } })
    expect(match('/items/seven/')).toEqual({ route: bySlug, params: { slug: 'seven' } })
    expect(match('/items/se%20ven/')).toBeNull()
    expect(matchRoutes([byId])('/items/abc/')).toBeNull()
  })
})
