/**
 * Generated requests against the DRF 3.14 oracle (issue 24): random but plausible query
 * strings (repeats, Python's and JavaScript's whitespace, U+FEFF, Arabic-Indic and full-width
 * digits, `_`, `+`, `%00`), path variants (`%2F`, `/./`, a trailing `.`, `//`, case, encoded
 * letters), methods (extension methods included), Accept and Authorization headers, garbage
 * session and CSRF cookies and hand-made DRF cursors, sent in the same order to a freshly
 * seeded oracle and reference API, on the framework of the vitest project. Compared as the
 * fixed oracle lists are (`comparable`: status, the DRF headers, Set-Cookie deletions, body).
 *
 * Seeded: `ORACLE_SEED` picks the seed (printed on every run), `ORACLE_GENERATED_RUNS` the
 * number of requests (a small fixed number by default; raise it to search wider). Left out of
 * the comparison by name, as README's "Differences from DRF" lists them: DRF's own 500s
 * (counted and printed), and the HTML page's missing csrftoken cookie.
 * The ordering routes (`/api/articles/ordered/`, `cursor-ordered/`) are generated with `?ordering=`.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { freshSqlite } from '../helpers/databases.js'
import { unquotePath } from '../../src/core/request/url-decoding.js'
import { comparable, exchange, type ExchangeRequest, type ExchangeResult, type SessionCookies } from './http-exchange.js'
import { oracleAvailable, useOracleAndReference } from './oracle-server.js'
import { BOB_TOKEN, PAGINATED_ARTICLE_ROUTES } from './requests.js'
import { unavailable } from '../helpers/requirements.js'

const SEED = Number(process.env['ORACLE_SEED'] ?? 2411)
const RUNS = Number(process.env['ORACLE_GENERATED_RUNS'] ?? 60)

/** Routes the oracle and the reference API share (no ordering routes, no gatehouse-only ones). */
const ROUTES: readonly string[] = [
  '/api/whoami/',
  '/api/private/',
  '/api/staff/',
  '/api/schemes/basic/',
  '/api/schemes/token/',
  '/api/schemes/bearer/',
  '/api/schemes/session/',
  '/api/schemes/session-basic/',
  '/api/schemes/custom/',
  '/api/auth/token/',
  '/api/auth/csrf/',
  '/api/auth/logout/',
  '/api/articles/all/',
  '/api/articles/ordered/',
  '/api/articles/cursor-ordered/',
  ...PAGINATED_ARTICLE_ROUTES,
]
const KNOWN = new Set(ROUTES)

/** A path variant: how Django routes it is checked against the route list when comparing. */
const pathVariant = fc
  .tuple(fc.constantFrom(...ROUTES), fc.constantFrom('as is', 'as is', 'as is', '%2F', '/./', 'trailing .', '//', 'upper', '%61', 'no slash'), fc.nat())
  .map(([route, variant, n]) => {
    const slashes = [...route.matchAll(/\//g)].map((m) => m.index).filter((i) => i > 0 && i < route.length - 1)
    const at = slashes.length === 0 ? 1 : (slashes[n % slashes.length] ?? 1)
    switch (variant) {
      case '%2F':
        return `${route.slice(0, at)}%2F${route.slice(at + 1)}`
      case '/./':
        return `${route.slice(0, at)}/.${route.slice(at)}`
      case 'trailing .':
        return `${route}.`
      case '//':
        return `${route.slice(0, at)}/${route.slice(at)}`
      case 'upper':
        return route.slice(0, at + 1) + route.slice(at + 1).toUpperCase()
      case '%61':
        return route.replace('a', '%61')
      case 'no slash':
        return route.slice(0, -1)
      default:
        return route
    }
  })

// Query text units: digits, signs, `_`, Python's and JavaScript's whitespace (percent-encoded
// as a client sends them), U+FEFF, other scripts' digits, `%00`, words the views know.
const unit = fc.constantFrom(
  '0', '1', '2', '3', '5', '9', '-', '+', '_', '.', '%20', '%2B', '%C2%85', '%C2%A0', '%EF%BB%BF', '%1C', '%1F', '%E2%80%A8',
  '%D9%A3', '%EF%BC%92', '%00', '%zz', 'alice', 'bob', 'last', 'a',
)
const value = fc.array(unit, { maxLength: 4 }).map((units) => units.join(''))
const formatValue = fc.constantFrom('json', 'api', 'html', 'xml', '', '7', 'JSON')

/** A hand-made DRF cursor: `o`, `r`, `p` in any order, Python int() and Django datetime forms. */
const position = fc.oneof(
  value,
  fc.constantFrom('2147483648', '-2147483649', '+5', '1_0', '%D9%A3', '+7+', '5.0', 'abc'),
  fc.constantFrom('2024-01-01', '2024-1-1+01:00:00', '2024-01-01+1:0', '2024-01-01T00:10:00Z', '2024-01-01+00:10:00%2B01:00', '2024-02-30', '2024-01-01+24:00', '2024-01-01+00:20:00.5-0030'),
)
const drfCursor = fc
  .tuple(
    fc.option(fc.constantFrom('0', '2', '1001', '-1', '+3', 'x'), { nil: undefined }),
    fc.option(fc.constantFrom('1', '0', '2', 'x'), { nil: undefined }),
    fc.option(position, { nil: undefined }),
  )
  .map(([o, r, p]) => {
    const pairs = [o === undefined ? '' : `o=${o}`, r === undefined ? '' : `r=${r}`, p === undefined ? '' : `p=${p}`].filter((x) => x !== '')
    return encodeURIComponent(Buffer.from(pairs.join('&'), 'latin1').toString('base64'))
  })
const pair = fc.oneof(
  fc.tuple(fc.constantFrom('page', 'page_size', 'limit', 'offset', 'author', 'x', 'q'), value),
  fc.tuple(fc.constant('format'), formatValue),
  fc.tuple(fc.constant('ordering'), fc.constantFrom('score', '-score', 'created', '-created', 'id', '-id', 'title', 'score,-id', '-score,created', 'bogus', '', 'score,bogus')),
  fc.tuple(fc.constant('cursor'), fc.oneof(drfCursor, value)),
)
const query = fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`))

const method = fc.constantFrom('GET', 'GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'PROPFIND', 'MKCOL')
const accept = fc.option(fc.constantFrom('application/json', 'text/html', '*/*', 'application/json ;q=1', 'text/html,*/*;q=0.8', 'garbage'), { nil: undefined })
const authorization = fc.option(
  fc.constantFrom(`Token ${BOB_TOKEN}`, `Bearer ${BOB_TOKEN}`, `Basic ${Buffer.from('alice:alice-pass-1').toString('base64')}`, 'Token nope', 'Basic =a='),
  { nil: undefined },
)
// Session and CSRF cookies that hold nothing: short, empty, quoted, long unknown keys.
const cookie = fc.option(
  fc
    .array(fc.constantFrom('sessionid=garbage', 'sessionid=', 'sessionid="quoted"', 'sessionid=garbage12345', 'sessionid=abcdefghijklmnopqrstuvwxyz012345', 'csrftoken=x', 'csrftoken=', 'csrftoken="a b"', 'other=1'), { minLength: 1, maxLength: 3 })
    .map((parts) => parts.join('; ')),
  { nil: undefined },
)
const body = fc.option(
  fc.constantFrom(
    ['application/json', '{"title": "Generated", "score": 3}'],
    ['application/json', '{"username": "alice", "password": "alice-pass-1"}'],
    ['application/json', '{"title": ""}'],
    ['application/x-www-form-urlencoded', 'title=x&score=%EF%BC%92'],
    ['text/plain', 'x'],
  ),
  { nil: undefined },
)

const request = fc.record({ method, path: pathVariant, query, accept, authorization, cookie, body }).map(({ method, path, query, accept, authorization, cookie, body }): ExchangeRequest => {
  const headers: Record<string, string> = {}
  if (accept !== undefined) headers['Accept'] = accept
  if (authorization !== undefined) headers['Authorization'] = authorization
  if (cookie !== undefined) headers['Cookie'] = cookie
  const withBody = body !== undefined && method !== 'GET' && method !== 'HEAD'
  if (withBody) headers['Content-Type'] = body[0]
  // Django answers a path no route matches with its own HTML 404 page: compare the status.
  const routed = KNOWN.has(unquotePath(path))
  return { name: `${method} ${path}${query} ${JSON.stringify(headers)}${withBody ? ` ${body[1]}` : ''}`, method, path: `${path}${query}`, headers, ...(withBody ? { body: body[1] } : {}), ...(routed ? {} : { statusOnly: true }) }
})

/**
 * Values that differ between any two servers besides what `comparable` masks: cursors in
 * links, creation times. And one documented difference by name, `HTML page without csrftoken`:
 * DRF's browsable page sets the CSRF cookie and so varies on Cookie; gatehouse's page has no
 * form (README: "no `csrftoken` cookie (so no `Vary: Cookie` unless a session scheme ran)").
 */
function masked(result: ExchangeResult, req: ExchangeRequest): unknown {
  const html = (result.headers['content-type'] ?? '').startsWith('text/html')
  const shown = comparable(result, req)
  return JSON.parse(
    JSON.stringify(html && 'vary-cookie' in shown ? { ...shown, 'vary-cookie': '<HTML page without csrftoken>' } : shown)
      .replace(/cursor=[^&"\\>]*/g, 'cursor=*')
      .replace(/"created":"(?!2024-01-01)[^"]*"/g, '"created":"<now>"'),
  ) as unknown
}

/**
 * The documented improvements, by name: an answer in one of these is not compared.
 * - `DRF 500`: DRF fails (a position SQLite cannot bind, a datetime Python refuses…);
 *   gatehouse answers 4xx or the page (README: "except where DRF itself fails (a 500)").
 */
function documentedImprovement(oracle: ExchangeResult): string | null {
  if (oracle.status === 500) return 'DRF 500'
  return null
}

describe.skipIf(unavailable('the DRF oracle (python3 with Django and DRF)', oracleAvailable()))('generated requests get the same answer from gatehouse and DRF 3.14', () => {
  const servers = useOracleAndReference(freshSqlite)
  const sessions = new Map<string, SessionCookies | null>()

  it(`${RUNS} generated requests (seed ${SEED})`, async () => {
    console.log(`generated oracle comparison: seed ${SEED}, ${RUNS} requests (ORACLE_SEED, ORACLE_GENERATED_RUNS)`)
    const excluded = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        // Sequential, same order: some requests change state (tokens, articles).
        const ours = await exchange(servers.ours.baseUrl, req, sessions)
        const theirs = await exchange(servers.oracleBase, req, sessions)
        const reason = documentedImprovement(theirs)
        if (reason !== null) {
          excluded.set(reason, (excluded.get(reason) ?? 0) + 1)
          return
        }
        expect(masked(ours, req), req.name).toEqual(masked(theirs, req))
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    )
    console.log(`left out as documented improvements: ${JSON.stringify(Object.fromEntries(excluded))}`)
  }, 300_000)
})
