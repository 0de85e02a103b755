import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requestUrlOf } from './request-url.js'

/** The rule spelt out the long way: the Host's origin, then the target's path and query. */
function slow(protocol: string, host: string, target: string): string | null {
  try {
    const base = new URL(`${protocol}://${host}`)
    if (base.pathname !== '/' || base.search !== '' || base.hash !== '' || base.username !== '' || base.password !== '') return null
    const path = target.startsWith('/') ? target : (() => { const u = new URL(target); return `${u.pathname}${u.search}` })()
    return new URL(`${base.origin}${path}`).href
  } catch {
    return null
  }
}

describe('requestUrlOf', () => {
  it('appends the target to the Host origin, never resolving it', () => {
    expect(requestUrlOf('http', 'good.example', '//evil.example/x?q=1')?.href).toBe('http://good.example//evil.example/x?q=1')
    expect(requestUrlOf('http', 'good.example:8080', 'http://evil.example/x/?q')?.href).toBe('http://good.example:8080/x/?q')
    expect(requestUrlOf('https', 'good.example:443', '/a/')?.href).toBe('https://good.example/a/')
  })

  it('refuses a Host that is not a bare host[:port]', () => {
    for (const host of ['', 'a b', '[::1', 'h/x?', 'user@h', 'h:99999', 'h#f', 'h?x']) expect(requestUrlOf('http', host, '/'), host).toBeNull()
    expect(requestUrlOf('http', undefined, '/')).toBeNull()
  })

  it('gives what the long way gives, for any host and target (the one-parse fast path included)', () => {
    const hostChar = fc.constantFrom(...'aZ0.-:[]@/?#%\\ _'.split(''))
    const host = fc.oneof(fc.string({ unit: hostChar, maxLength: 12 }), fc.constantFrom('localhost', '127.0.0.1:8000', 'a.b:0080', '[::1]:80', 'x:', 'h:65536'))
    const target = fc.oneof(fc.string({ unit: fc.constantFrom(...'/a.?#%2F:@'.split('')), maxLength: 10 }).map((t) => `/${t}`), fc.constantFrom('//evil/x', 'http://evil/y?z', '*'))
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), host, target, (protocol, h, t) => {
        expect(requestUrlOf(protocol, h, t)?.href ?? null).toBe(h === '' ? null : slow(protocol, h, t))
      }),
      { numRuns: 3000 },
    )
  })
})
