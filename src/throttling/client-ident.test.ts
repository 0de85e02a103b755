import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ApiRequest } from '../core/api-request.js'
import { createApiRequest } from '../core/request/request-factory.js'
import { clientIdent, clientNetwork } from './client-ident.js'

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
    ['IPv6 peer grouped by its /64 network', '2001:db8::1', undefined, 0, '2001:db8:0:0:0:0:0:0/64'],
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

describe('clientNetwork: IPv6 clients grouped by network', () => {
  it.each([
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:db8:1:2::1', 64, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:DB8:1:2:ffff::9%eth0', 64, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:db8:1:2:3:4:5:6', 48, '2001:db8:1:0:0:0:0:0/48'],
    ['2001:db8:1:2:3:4:5:6', 56, '2001:db8:1:0:0:0:0:0/56'],
    ['2001:db8:1:2ff:3:4:5:6', 56, '2001:db8:1:200:0:0:0:0/56'],
    ['::1', 128, '0:0:0:0:0:0:0:1/128'],
    ['::ffff:10.0.0.5', 64, '10.0.0.5'],
    ['10.0.0.5', 64, '10.0.0.5'],
    ['64:ff9b::1.2.3.4', 96, '64:ff9b:0:0:0:0:0:0/96'],
    ['not an address', 64, 'not an address'],
  ] as const)('%s /%i → %s', (address, prefix, expected) => {
    expect(clientNetwork(address, prefix)).toBe(expected)
  })

  it('two addresses in one /64 share an ident; another /64 does not', () => {
    const ident = (address: string): string => clientIdent(request(address), 0)
    expect(ident('2001:db8:0:1::a')).toBe(ident('2001:db8:0:1:ffff:ffff:ffff:ffff'))
    expect(ident('2001:db8:0:1::a')).not.toBe(ident('2001:db8:0:2::a'))
  })
})
