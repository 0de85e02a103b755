import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request-factory.js'
import { clientIdent } from './client-ident.js'

function request(remoteAddress: string | null, xff?: string): ApiRequest {
  const headers = new Headers()
  if (xff !== undefined) headers.set('x-forwarded-for', xff)
  return createApiRequest({
    method: 'GET',
    url: new URL('http://testserver/'),
    headers,
    remoteAddress,
    readBody: async () => null,
  })
}

describe('clientIdent (DRF get_ident, drf-behaviors §10.7)', () => {
  const XFF = '0.0.0.0, 1.1.1.1, 2.2.2.2'
  const cases: readonly [string, string | null, string | undefined, number, string][] = [
    ['numProxies 0 ignores a client-sent header', '127.0.0.1', XFF, 0, '127.0.0.1'],
    ['numProxies 0 without a header', '127.0.0.1', undefined, 0, '127.0.0.1'],
    ['numProxies 1 takes the rightmost entry', '127.0.0.1', XFF, 1, '2.2.2.2'],
    ['numProxies 2 takes the second from the right', '127.0.0.1', XFF, 2, '1.1.1.1'],
    ['numProxies 3 takes the leftmost', '127.0.0.1', XFF, 3, '0.0.0.0'],
    ['numProxies beyond the entries takes the leftmost', '127.0.0.1', XFF, 9, '0.0.0.0'],
    ['numProxies 1 without a header uses the peer', '10.0.0.7', undefined, 1, '10.0.0.7'],
    ['a single entry', '127.0.0.1', '5.6.7.8', 2, '5.6.7.8'],
    ['an empty header falls back to the peer', '10.0.0.7', '', 1, '10.0.0.7'],
    ['an empty selected entry falls back to the peer', '10.0.0.7', '1.1.1.1, ', 1, '10.0.0.7'],
    ['IPv4-mapped IPv6 peer is normalised', '::ffff:127.0.0.1', undefined, 0, '127.0.0.1'],
    ['IPv6 peer kept as is', '::1', undefined, 0, '::1'],
    ['unknown peer', null, undefined, 0, 'unknown'],
  ]
  for (const [name, peer, xff, numProxies, expected] of cases) {
    it(name, () => expect(clientIdent(request(peer, xff), numProxies)).toBe(expected))
  }

  it('with numProxies 0, no header value changes the ident', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), (xff) => {
        expect(clientIdent(request('192.0.2.1', xff), 0)).toBe('192.0.2.1')
      }),
    )
  })

  it('with numProxies n, the ident never contains a comma and a proxy-appended entry wins', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), fc.integer({ min: 1, max: 4 }), (spoofed, n) => {
        // n proxies each append one address: the client's real one is n-th from the right.
        const appended = ['203.0.113.9', ...Array.from({ length: n - 1 }, (_, i) => `10.0.0.${i + 1}`)]
        const header = [spoofed, ...appended].join(', ')
        expect(clientIdent(request('10.9.9.9', header), n)).toBe('203.0.113.9')
      }),
    )
  })
})
