import { describe, expect, it } from 'vitest'
import { createApiRequest, parseCookies } from './request-factory.js'

describe('parseCookies = Django parse_cookie', () => {
  // [header, what Debian's Django 3.2 django.http.cookie.parse_cookie returns]
  const DJANGO_VECTORS: readonly (readonly [string, Record<string, string>])[] = [
    ['', {}],
    ['a=1', { a: '1' }],
    ['a=1; b=2', { a: '1', b: '2' }],
    ['a=1;b=2;', { a: '1', b: '2' }],
    ['a=1; a=2', { a: '2' }],
    ['noequals', { '': 'noequals' }],
    ['a="quoted"', { a: 'quoted' }],
    ['a="q\\"x\\\\y"', { a: 'q"x\\y' }],
    ['a="\\101\\102c"', { a: 'ABc' }],
    ['a="', { a: '"' }],
    ['a=""', { a: '' }],
    ['  a = 1 ; b= 2 ', { a: '1', b: '2' }],
    ['a=%20x', { a: '%20x' }],
    ['a=1=2', { a: '1=2' }],
    ['=v', { '': 'v' }],
    [';;;', {}],
    ['a=\xa0x\xa0', { a: 'x' }],
    ['a=\x1cx', { a: 'x' }],
    ['__proto__=x', Object.fromEntries([['__proto__', 'x']]) as Record<string, string>],
    ['a,b=1', { 'a,b': '1' }],
    ['a=1, b=2', { a: '1, b=2' }],
    ['a="x"y"', { a: 'x"y' }],
    ['n=\xe9', { n: '\xe9' }],
  ]

  it.each(DJANGO_VECTORS)('%j', (header, expected) => {
    const parsed = parseCookies(header)
    expect(Object.entries(parsed)).toEqual(Object.entries(expected))
  })

  it('null is empty', () => {
    expect(Object.keys(parseCookies(null))).toEqual([])
  })

  it('a "__proto__" cookie is a plain entry, not a prototype change', () => {
    const parsed = parseCookies('__proto__=x; a=1')
    expect(Object.getPrototypeOf(parsed)).toBeNull()
    expect(parsed['__proto__']).toBe('x')
  })
})

describe('createApiRequest', () => {
  const headers = (values: Record<string, string>): { get(name: string): string | null } => ({
    get: (name) => values[name.toLowerCase()] ?? null,
  })

  it('upper-cases the method, reads cookies lazily, parses the body once', async () => {
    let reads = 0
    const req = createApiRequest({
      method: 'post',
      url: new URL('http://x/api/'),
      headers: headers({ cookie: 'sessionid=a; sessionid=b', 'content-type': 'application/json' }),
      remoteAddress: null,
      readBody: async () => {
        reads++
        return new TextEncoder().encode('{"a": 1}')
      },
    })
    expect(req.method).toBe('POST')
    expect(req.cookie('sessionid')).toBe('b')
    expect(req.cookie('missing')).toBeNull()
    expect(req.cookie('constructor')).toBeNull()
    expect(await req.body()).toEqual({ a: 1 })
    expect(await req.body()).toEqual({ a: 1 })
    expect(reads).toBe(1)
  })

  it('returns a body the framework already parsed without reading the raw bytes', async () => {
    let reads = 0
    const req = createApiRequest({
      method: 'POST',
      url: new URL('http://h/'),
      headers: { get: (n) => (n === 'content-type' ? 'application/json' : null) },
      remoteAddress: null,
      readBody: async () => {
        reads++
        return new TextEncoder().encode('{')
      },
      parsedBody: () => ({ data: { title: 'Dune' } }),
    })
    expect(await req.body()).toEqual({ title: 'Dune' })
    expect(reads).toBe(0)
  })
})

describe('createApiRequest parsedBody', () => {
  const base = { method: 'POST', url: new URL('http://x/'), headers: new Headers({ 'content-type': 'application/json' }), remoteAddress: null }

  it('uses a body the framework parsed instead of reading, and falls back to readBody on null', async () => {
    let reads = 0
    const readBody = async (): Promise<Uint8Array> => {
      reads++
      return new TextEncoder().encode('{"raw":true}')
    }
    const parsed = createApiRequest({ ...base, readBody, parsedBody: () => ({ data: { parsed: true } }) })
    expect(await parsed.body()).toEqual({ parsed: true })
    expect(reads).toBe(0)
    const unparsed = createApiRequest({ ...base, readBody, parsedBody: () => null })
    expect(await unparsed.body()).toEqual({ raw: true })
    expect(reads).toBe(1)
  })
})
