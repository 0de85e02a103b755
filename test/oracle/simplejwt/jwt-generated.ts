import fc from 'fast-check'
import type { ExchangeRequest } from '../http-exchange.js'
import { peekClaims, tampered } from './jwt-exchange.js'

/**
 * Generated requests for the JWT routes (test/oracle/jwt-oracle.test.ts): a token from the
 * run's pool (minted by either server or hand-made) as is or mutated, put in a JSON or form
 * body under the field a view reads (or the wrong one), or in an `Authorization` header of
 * any keyword, case and spacing for the who-am-I route.
 */

/** Tokens to draw from: `good` ones (minted by either server, valid) are drawn as often as all the others. */
export interface TokenPool {
  readonly good: readonly string[]
  readonly others: readonly string[]
}

/** A token of the pool, mostly as is, else mutated the way clients and attackers mangle them. */
function mutatedToken(pool: TokenPool): fc.Arbitrary<string> {
  const all = [...pool.good, ...pool.others]
  const pick = (list: readonly string[]): fc.Arbitrary<string> => fc.nat().map((i) => list[i % list.length] ?? '')
  return fc
    .tuple(
      fc.oneof(pick(pool.good), pick(pool.others)),
      pick(all),
      fc.oneof(
        { weight: 8, arbitrary: fc.constant('as is') },
        { weight: 9, arbitrary: fc.constantFrom('tampered', 'truncated', 'padded', 'blanks around', 'swapped payload', 'no signature', 'upper-case', 'two dots', 'newline inside') },
      ),
    )
    .map(([token, other, how]) => {
      const [header = '', payload = '', signature = ''] = token.split('.')
      switch (how) {
        case 'tampered':
          return tampered(token)
        case 'truncated':
          return token.slice(0, -1)
        case 'padded':
          return `${token}=`
        case 'blanks around':
          return ` ${token} `
        case 'swapped payload':
          return `${header}.${other.split('.')[1] ?? ''}.${signature}`
        case 'no signature':
          return `${header}.${payload}.`
        case 'upper-case':
          return token.toUpperCase()
        case 'two dots':
          return `${header}..${signature}`
        case 'newline inside':
          return `${header}.${payload}\n.${signature}`
        default:
          return token
      }
    })
}

/** What a field holds: a (mutated) token mostly, else a credential or a non-string JSON value. */
function fieldValue(pool: TokenPool): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: mutatedToken(pool) },
    { weight: 2, arbitrary: fc.constantFrom('alice', 'alice-pass-1', 'bob', 'bob-pass-2', 'carol', 'carol-pass-3', 'nobody', '', ' ', 'x') },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 7, true, [], ['a'], {}, 1.5) },
  )
}

/** A value for a view's own field: credentials for obtain's, tokens for the others. */
function usualValue(field: string, pool: TokenPool): fc.Arbitrary<unknown> {
  if (field === 'username') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom('alice', 'bob', 'carol', 'admin', 'nobody', ' alice', 'ALICE') }, fieldValue(pool))
  if (field === 'password') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom('alice-pass-1', 'bob-pass-2', 'carol-pass-3', 'admin-pass-4', 'x', ' alice-pass-1') }, fieldValue(pool))
  return fieldValue(pool)
}

const FIELDS = ['refresh', 'token', 'username', 'password', 'access', 'Refresh'] as const

const VIEWS = ['/api/jwt/', '/api/jwt/refresh/', '/api/jwt/verify/', '/api/jwt/blacklist/'] as const

/** A POST to a token view: JSON, form-encoded or no body; two or three fields, the view's own mostly. */
function tokenViewRequest(pool: TokenPool): fc.Arbitrary<ExchangeRequest> {
  const usual: Record<(typeof VIEWS)[number], readonly string[]> = {
    '/api/jwt/': ['username', 'password'],
    '/api/jwt/refresh/': ['refresh'],
    '/api/jwt/verify/': ['token'],
    '/api/jwt/blacklist/': ['refresh'],
  }
  return fc
    .constantFrom(...VIEWS)
    .chain((path) =>
      fc.tuple(
        fc.constant(path),
        fc.constantFrom('json', 'json', 'json', 'form', 'none'),
        fc.constantFrom(true, true, true, false),
        fc.array(fc.tuple(fc.constantFrom(...FIELDS), fieldValue(pool)), { maxLength: 1 }),
        path === '/api/jwt/'
          ? fc.oneof(
              // The seed's own pairs (carol's is inactive), then any mix.
              fc.constantFrom<unknown[]>(['alice', 'alice-pass-1'], ['bob', 'bob-pass-2'], ['carol', 'carol-pass-3']),
              fc.tuple(...usual[path].map((field) => usualValue(field, pool))),
            )
          : fc.tuple(...usual[path].map((field) => usualValue(field, pool))),
      ),
    )
    .map(([path, format, usualFields, extra, values]) => {
      const fields: [string, unknown][] = [...(usualFields ? usual[path].map((f, i): [string, unknown] => [f, values[i]]) : []), ...extra]
      const name = `POST ${path} ${format} ${JSON.stringify(fields)}`
      if (format === 'none') return { name, method: 'POST', path }
      if (format === 'form') {
        const body = fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&')
        return { name, method: 'POST', path, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body }
      }
      return { name, method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(Object.fromEntries(fields)) }
    })
}

/** `GET /api/schemes/jwt/` with an `Authorization` header of any keyword, case and spacing, or none. */
function whoamiRequest(pool: TokenPool): fc.Arbitrary<ExchangeRequest> {
  // A good access token as clients send it, often enough that the run sees users authenticate
  // (the first tokens a run blacklists or mangles are the refresh ones; access tokens stay good).
  const wellFormed = fc.constantFrom(...pool.good.filter((token) => peekClaims(token)?.['token_type'] === 'access')).map(
    (token): ExchangeRequest => ({ name: `GET /api/schemes/jwt/ Bearer <good access>`, method: 'GET', path: '/api/schemes/jwt/', headers: { Authorization: `Bearer ${token}` } }),
  )
  const anyHeader = fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: fc.constant('Bearer') }, { weight: 2, arbitrary: fc.constantFrom('bearer', 'BEARER', 'JWT', 'Token', '', 'Bearer\xe9') }),
      fc.constantFrom(' ', ' ', ' ', ' ', '  ', '\t', ''),
      fc.option(mutatedToken(pool), { nil: undefined, freq: 8 }),
      fc.option(fc.constantFrom(' x', ' ', '\t'), { nil: undefined }),
      fc.constantFrom(true, true, true, false),
    )
    .map(([keyword, gap, token, tail, withHeader]) => {
      // A header value cannot hold a line break (Node's client refuses it).
      const authorization = `${keyword}${gap}${(token ?? '').replace(/\n/g, '')}${tail ?? ''}`
      const headers: Record<string, string> = withHeader ? { Authorization: authorization } : {}
      return { name: `GET /api/schemes/jwt/ ${JSON.stringify(headers)}`, method: 'GET', path: '/api/schemes/jwt/', headers }
    })
  return fc.oneof({ weight: 1, arbitrary: wellFormed }, { weight: 3, arbitrary: anyHeader })
}

/** One generated request for the JWT routes, its tokens drawn from `pool`. */
export function generatedJwtRequest(pool: TokenPool): fc.Arbitrary<ExchangeRequest> {
  return fc.oneof({ weight: 3, arbitrary: tokenViewRequest(pool) }, { weight: 2, arbitrary: whoamiRequest(pool) })
}
