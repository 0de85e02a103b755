import type { ExchangeRequest } from './http-exchange.js'

/**
 * The requests sent to both gatehouse's reference API and the DRF oracle, in
 * order (some change state: remote-user creates users, the token endpoint creates
 * tokens, so both servers must start fresh and get the same sequence).
 * Other helpers append their own lists (articles) and export them from here.
 */

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64')
/** The reference API's paginated article lists (every style, and the manual view). */
export const PAGINATED_ARTICLE_ROUTES: readonly string[] = [
  '/api/articles/',
  '/api/articles/pages/',
  '/api/articles/offset/',
  '/api/articles/cursor/',
  '/api/articles/cursor-score/',
  '/api/articles/link-header/',
  '/api/articles/nested/',
  '/api/articles/manual/',
  '/api/articles/ordered/',
  '/api/articles/cursor-ordered/',
]

export const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'
export const CAROL_TOKEN = 'ca7013ca7013ca7013ca7013ca7013ca7013ca70'

/** Authorization header values, by name. */
export const CREDENTIALS: Readonly<Record<string, string>> = {
  'basic alice': `Basic ${b64('alice:alice-pass-1')}`,
  'basic admin': `Basic ${b64('admin:admin-pass-4')}`,
  'basic bob': `Basic ${b64('bob:bob-pass-2')}`,
  'basic alice wrong password': `Basic ${b64('alice:nope')}`,
  'basic unknown user': `Basic ${b64('ghost:alice-pass-1')}`,
  'basic carol (inactive)': `Basic ${b64('carol:carol-pass-3')}`,
  'basic no colon': `Basic ${b64('alice')}`,
  'basic empty': 'Basic',
  'basic spaces': 'Basic a b',
  'basic bad base64': 'Basic =a=',
  'basic bad padding': 'Basic abc',
  'basic junk chars': `Basic ${b64('alice:alice-pass-1').slice(0, 4)}!!${b64('alice:alice-pass-1').slice(4)}`,
  'basic data after padding': `Basic ${b64('bob:bob-pass-2')}YWJj`,
  'basic mixed case + tab': `bAsIc\t${b64('alice:alice-pass-1')}`,
  'basic latin1 password': `Basic ${Buffer.from('alice:\xe9', 'latin1').toString('base64')}`,
  'token bob': `Token ${BOB_TOKEN}`,
  'token bob lowercase keyword': `token ${BOB_TOKEN}`,
  'token bob many spaces': `Token    ${BOB_TOKEN}`,
  'token carol (inactive)': `Token ${CAROL_TOKEN}`,
  'token unknown': 'Token nope',
  'token empty': 'Token',
  'token spaces': 'Token a b',
  'token invalid utf-8': 'Token abc\xb8',
  'token overlong': `Token ${BOB_TOKEN}0`,
  'bearer bob': `Bearer ${BOB_TOKEN}`,
  'bearer carol (inactive)': `Bearer ${CAROL_TOKEN}`,
  'bearer unknown': 'Bearer nope',
  'unknown scheme': 'Digest abc',
}

const DEFAULT_ROUTES = ['/api/whoami/', '/api/private/', '/api/staff/']

function withAuth(prefix: string, path: string, names: readonly string[]): ExchangeRequest[] {
  return names.map((name) => ({
    name: `${prefix} ${name}`,
    method: 'GET',
    path,
    headers: { Authorization: CREDENTIALS[name] ?? '' },
  }))
}

const get = (name: string, path: string, headers: Record<string, string> = {}): ExchangeRequest => ({
  name,
  method: 'GET',
  path,
  headers,
})

/** Every Identity route of reference-api.md with every credential shape. */
export const IDENTITY_REQUESTS: readonly ExchangeRequest[] = [
  ...DEFAULT_ROUTES.flatMap((path) => [
    get(`${path} no credentials`, path),
    ...withAuth(path, path, Object.keys(CREDENTIALS)),
  ]),
  // Methods, negotiation and paths.
  { name: 'DELETE /api/whoami/ anonymous (405)', method: 'DELETE', path: '/api/whoami/' },
  { name: 'POST /api/whoami/ anonymous (405)', method: 'POST', path: '/api/whoami/' },
  { name: 'DELETE /api/private/ anonymous (401 before 405)', method: 'DELETE', path: '/api/private/' },
  { name: 'DELETE /api/private/ bob (405)', method: 'DELETE', path: '/api/private/', headers: { Authorization: CREDENTIALS['token bob'] ?? '' } },
  { name: 'HEAD /api/whoami/', method: 'HEAD', path: '/api/whoami/' },
  { name: 'HEAD /api/private/ anonymous', method: 'HEAD', path: '/api/private/' },
  get('/api/private/ Accept application/xml (406 before 401)', '/api/private/', { Accept: 'application/xml' }),
  get('/api/whoami/ Accept application/json', '/api/whoami/', { Accept: 'application/json' }),
  get('/api/whoami/ Accept */*', '/api/whoami/', { Accept: '*/*' }),
  get('/api/whoami/ empty Accept (406)', '/api/whoami/', { Accept: '' }),
  get('/api/private/ malformed Accept (406 before 401)', '/api/private/', { Accept: 'garbage' }),
  get('/api/whoami/ Accept application/json;q=0 (q is ignored)', '/api/whoami/', { Accept: 'application/json;q=0' }),
  { ...get('/api/private no slash (404)', '/api/private'), statusOnly: true },
  get('/api/whoami/?format=json', '/api/whoami/?format=json'),
  get('/api/whoami/?format=xml (404)', '/api/whoami/?format=xml'),
  get('/api/private/?format=xml anonymous (404 before 401)', '/api/private/?format=xml'),
  // Scheme-specific routes.
  get('/api/schemes/basic/ no credentials', '/api/schemes/basic/'),
  ...withAuth('/api/schemes/basic/', '/api/schemes/basic/', [
    'basic alice',
    'basic alice wrong password',
    'basic carol (inactive)',
    'basic no colon',
    'token bob',
    'basic spaces',
  ]),
  get('/api/schemes/token/ no credentials', '/api/schemes/token/'),
  ...withAuth('/api/schemes/token/', '/api/schemes/token/', [
    'token bob',
    'token carol (inactive)',
    'token unknown',
    'token empty',
    'basic alice',
    'bearer bob',
  ]),
  get('/api/schemes/bearer/ no credentials', '/api/schemes/bearer/'),
  ...withAuth('/api/schemes/bearer/', '/api/schemes/bearer/', [
    'bearer bob',
    'bearer carol (inactive)',
    'bearer unknown',
    'token bob',
  ]),
  get('/api/schemes/session/ no credentials', '/api/schemes/session/'),
  { name: 'POST /api/schemes/session/ no credentials', method: 'POST', path: '/api/schemes/session/' },
  ...withAuth('/api/schemes/session/', '/api/schemes/session/', ['basic alice', 'token bob']),
  get('/api/schemes/remote-user/ no header', '/api/schemes/remote-user/'),
  get('/api/schemes/remote-user/ alice', '/api/schemes/remote-user/', { 'X-Remote-User': 'alice' }),
  get('/api/schemes/remote-user/ carol (inactive)', '/api/schemes/remote-user/', { 'X-Remote-User': 'carol' }),
  get('/api/schemes/remote-user/ empty', '/api/schemes/remote-user/', { 'X-Remote-User': '' }),
  get('/api/schemes/remote-user/ new user', '/api/schemes/remote-user/', { 'X-Remote-User': 'newbie' }),
  get('/api/schemes/remote-user/ new user again', '/api/schemes/remote-user/', { 'X-Remote-User': 'newbie' }),
  get('/api/schemes/remote-user/ case-sensitive', '/api/schemes/remote-user/', { 'X-Remote-User': 'Alice' }),
  get('/api/schemes/remote-user/ Latin-1 name', '/api/schemes/remote-user/', { 'X-Remote-User': 'd\xf6rte' }),
  get('/api/schemes/remote-user/ name with spaces', '/api/schemes/remote-user/', { 'X-Remote-User': 'ann marie' }),
  get('/api/whoami/ X-Remote-User is ignored by default schemes', '/api/whoami/', { 'X-Remote-User': 'alice' }),
  get('/api/schemes/custom/ no header', '/api/schemes/custom/'),
  get('/api/schemes/custom/ alice', '/api/schemes/custom/', { 'X-Username': 'alice' }),
  get('/api/schemes/custom/ carol (inactive, no check)', '/api/schemes/custom/', { 'X-Username': 'carol' }),
  get('/api/schemes/custom/ unknown', '/api/schemes/custom/', { 'X-Username': 'ghost' }),
  get('/api/schemes/custom/ empty', '/api/schemes/custom/', { 'X-Username': '' }),
  get('/api/schemes/custom/ user created by remote-user', '/api/schemes/custom/', { 'X-Username': 'd\xf6rte' }),
  { name: 'POST /api/schemes/session/ anonymous with a foreign Origin', method: 'POST', path: '/api/schemes/session/', headers: { Origin: 'http://evil.example' } },
  { name: 'HEAD /api/schemes/basic/ anonymous', method: 'HEAD', path: '/api/schemes/basic/' },
  { name: 'OPTIONS /api/private/ anonymous (401)', method: 'OPTIONS', path: '/api/private/' },
  { name: 'PUT /api/schemes/session/ anonymous (403 before 405)', method: 'PUT', path: '/api/schemes/session/' },
  get('/api/schemes/session-basic/ no credentials', '/api/schemes/session-basic/'),
  ...withAuth('/api/schemes/session-basic/', '/api/schemes/session-basic/', [
    'basic alice',
    'basic alice wrong password',
    'basic empty',
  ]),
  get('/api/schemes/basic-session/ no credentials', '/api/schemes/basic-session/'),
  ...withAuth('/api/schemes/basic-session/', '/api/schemes/basic-session/', [
    'basic alice',
    'basic alice wrong password',
    'basic empty',
  ]),
]

/** Requests that need a logged-in session (the reference API's `/api/auth/login/`). */
export const SESSION_REQUESTS: readonly ExchangeRequest[] = [
  { name: 'session alice GET whoami', method: 'GET', path: '/api/whoami/', session: { username: 'alice', csrf: false } },
  { name: 'session alice GET session route', method: 'GET', path: '/api/schemes/session/', session: { username: 'alice', csrf: false } },
  { name: 'session alice POST without CSRF header', method: 'POST', path: '/api/schemes/session/', session: { username: 'alice', csrf: false } },
  { name: 'session alice POST with CSRF header', method: 'POST', path: '/api/schemes/session/', session: { username: 'alice', csrf: true } },
  {
    name: 'session alice POST wrong CSRF header',
    method: 'POST',
    path: '/api/schemes/session/',
    headers: { 'X-CSRFToken': 'a'.repeat(64) },
    session: { username: 'alice', csrf: false },
  },
  {
    name: 'session alice POST JSON body, CSRF header',
    method: 'POST',
    path: '/api/schemes/session/',
    headers: { 'Content-Type': 'application/json' },
    body: '{"a": 1}',
    session: { username: 'alice', csrf: true },
  },
  {
    name: 'session alice POST text/plain body (415 from the CSRF step)',
    method: 'POST',
    path: '/api/schemes/session/',
    headers: { 'Content-Type': 'text/plain' },
    body: 'hello',
    session: { username: 'alice', csrf: true },
  },
  { name: 'session alice GET private', method: 'GET', path: '/api/private/', session: { username: 'alice', csrf: false } },
  { name: 'session alice GET staff (403)', method: 'GET', path: '/api/staff/', session: { username: 'alice', csrf: false } },
  { name: 'session alice GET session-basic', method: 'GET', path: '/api/schemes/session-basic/', session: { username: 'alice', csrf: false } },
  { name: 'session alice GET basic-session', method: 'GET', path: '/api/schemes/basic-session/', session: { username: 'alice', csrf: false } },
  {
    name: 'session alice + token bob: Token first wins',
    method: 'GET',
    path: '/api/whoami/',
    headers: { Authorization: `Token ${BOB_TOKEN}` },
    session: { username: 'alice', csrf: false },
  },
  {
    name: 'session alice + bad basic on session-basic: session wins',
    method: 'GET',
    path: '/api/schemes/session-basic/',
    headers: { Authorization: 'Basic =a=' },
    session: { username: 'alice', csrf: false },
  },
  { name: 'session admin GET staff', method: 'GET', path: '/api/staff/', session: { username: 'admin', csrf: false } },
  ...[
    'sessionid=bogus; sessionid={sessionid}',
    'sessionid={sessionid}; sessionid=bogus',
    'sessionid="{sessionid}"',
    'foo; sessionid={sessionid}',
    'sessionid = {sessionid} ',
    'SESSIONID={sessionid}',
    'sessionid={sessionid}%20',
  ].map((cookie): ExchangeRequest => ({
    name: `session alice GET with Cookie ${JSON.stringify(cookie)}`,
    method: 'GET',
    path: '/api/schemes/session/',
    session: { username: 'alice', csrf: false, cookie },
  })),
  ...[
    'csrftoken=bogus; csrftoken={csrftoken}; sessionid={sessionid}',
    'csrftoken={csrftoken}; csrftoken=bogus; sessionid={sessionid}',
    'csrftoken="{csrftoken}"; sessionid={sessionid}',
    'csrftoken=; sessionid={sessionid}',
  ].map((cookie): ExchangeRequest => ({
    name: `session alice POST with Cookie ${JSON.stringify(cookie)}`,
    method: 'POST',
    path: '/api/schemes/session/',
    session: { username: 'alice', csrf: true, cookie },
  })),
]

const json = (name: string, body: unknown, headers: Record<string, string> = {}): ExchangeRequest => ({
  name,
  method: 'POST',
  path: '/api/auth/token/',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

/** The token endpoint (spec 4.1), drf-behaviors §7.4. */
export const TOKEN_REQUESTS: readonly ExchangeRequest[] = [
  json('token: good JSON', { username: 'alice', password: 'alice-pass-1' }),
  json('token: good JSON again (same token)', { username: 'alice', password: 'alice-pass-1' }),
  {
    name: 'token: good form',
    method: 'POST',
    path: '/api/auth/token/',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'username=bob&password=bob-pass-2',
  },
  json('token: username with spaces is trimmed', { username: '  admin ', password: 'admin-pass-4' }),
  json('token: password is not trimmed', { username: 'alice', password: ' alice-pass-1' }),
  json('token: missing password', { username: 'alice' }),
  json('token: empty object', {}),
  { name: 'token: empty body', method: 'POST', path: '/api/auth/token/' },
  json('token: blank fields', { username: '', password: '' }),
  json('token: nulls', { username: null, password: null }),
  json('token: list username', { username: ['alice'], password: 'x' }),
  json('token: number password', { username: 'alice', password: 12 }),
  json('token: boolean username', { username: true, password: 'x' }),
  json('token: wrong password', { username: 'alice', password: 'nope' }),
  json('token: unknown user', { username: 'ghost', password: 'nope' }),
  json('token: inactive user', { username: 'carol', password: 'carol-pass-3' }),
  {
    name: 'token: text/plain (415)',
    method: 'POST',
    path: '/api/auth/token/',
    headers: { 'Content-Type': 'text/plain' },
    body: 'username=alice',
  },
  ...['{"username": "alice", "password": }', "{'username': 'alice'}", '[1,]', '{"a": NaN}', '\ufeff{}', '{"a": "\\x"}', '  '].map(
    (body): ExchangeRequest => ({
      name: `token: malformed JSON ${JSON.stringify(body)}`,
      method: 'POST',
      path: '/api/auth/token/',
      headers: { 'Content-Type': 'application/json' },
      body,
    }),
  ),
  {
    name: 'token: invalid UTF-8 in JSON',
    method: 'POST',
    path: '/api/auth/token/',
    headers: { 'Content-Type': 'application/json' },
    body: '{"username": "\xff"}',
    bodyEncoding: 'latin1',
  },
  json('token: Accept text/html (406)', { username: 'alice', password: 'alice-pass-1' }, { Accept: 'text/html' }),
  json(
    'token: browser Accept',
    { username: 'alice', password: 'alice-pass-1' },
    { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
  ),
  ...[
    '',
    'garbage',
    '*',
    'application/',
    'text/*',
    'application/*',
    '*/json',
    'application/json; indent=4',
    'application/json;q=0, text/html',
    'text/html, */*;q=0',
    'application/json+foo',
  ].map((accept) => json(`token: Accept ${JSON.stringify(accept)}`, { username: 'bob', password: 'bob-pass-2' }, { Accept: accept })),
  json('token: bad Authorization header', { username: 'alice', password: 'alice-pass-1' }, { Authorization: 'Token nope' }),
  json('token: malformed Basic header', { username: 'alice', password: 'alice-pass-1' }, { Authorization: 'Basic =a=' }),
  { name: 'token: GET (405)', method: 'GET', path: '/api/auth/token/' },
  { name: 'token: PUT (405)', method: 'PUT', path: '/api/auth/token/' },
  {
    name: 'token detailed: good',
    method: 'POST',
    path: '/api/auth/token/detailed/',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'bob', password: 'bob-pass-2' }),
  },
  {
    name: 'token detailed: bad',
    method: 'POST',
    path: '/api/auth/token/detailed/',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'bob', password: 'x' }),
  },
]

const BOB = { Authorization: `Token ${BOB_TOKEN}` }

/**
 * Wire details a generated comparison found (issues 17 and 24), one fixed request each, so
 * every run checks them on every framework: case and encoding of paths, dot segments,
 * extension methods, 204 answers, `?format=`, Python's whitespace and U+FEFF in query
 * values, stale session cookies. Paths Django answers with its HTML 404 compare the status.
 */
export const WIRE_REQUESTS: readonly ExchangeRequest[] = [
  // Paths: case-sensitive, percent-decoded before routing (%2F too), dot segments as sent.
  { ...get('upper-case path (404)', '/API/WHOAMI/'), statusOnly: true },
  { ...get('mixed-case path (404)', '/api/WhoAmI/'), statusOnly: true },
  get('%2F in the path routes as /', '/api%2Fwhoami/'),
  get('%2F in the path reaches the staff view (403)', '/api%2Fstaff/', BOB),
  get('%2F and %61 in an article path', '/api/articles%2Fpages%2F?page=2'),
  { ...get('dot segment (404)', '/api/./articles/nested/'), statusOnly: true },
  { ...get('trailing dot segment (404)', '/api/private/.'), statusOnly: true },
  { ...get('encoded dot segment (404)', '/api/x/%2E%2E/whoami/'), statusOnly: true },
  { name: 'PUT through a dot segment (404)', method: 'PUT', path: '/api/./articles/', statusOnly: true },
  { ...get('double slash (404)', '/api//whoami/'), statusOnly: true },
  { ...get('encoded ? in the path (404)', '/api/whoami/%3Fx'), statusOnly: true },
  // Methods: extension and unknown methods are DRF's 405 with Allow, or 401/403 first.
  { name: 'QUERY anonymous (405)', method: 'QUERY', path: '/api/whoami/' },
  { name: 'QUERY private anonymous (401 first)', method: 'QUERY', path: '/api/private/' },
  { name: 'QUERY on an unknown path (404)', method: 'QUERY', path: '/api/nope/', statusOnly: true },
  { name: 'QUERY with a JSON body (405)', method: 'QUERY', path: '/api/whoami/', headers: { 'Content-Type': 'application/json' }, body: '{}' },
  { name: 'PROPFIND anonymous (405)', method: 'PROPFIND', path: '/api/whoami/' },
  { name: 'PROPFIND private anonymous (401 first)', method: 'PROPFIND', path: '/api/private/' },
  { name: 'MKCOL staff as bob (403 first)', method: 'MKCOL', path: '/api/staff/', headers: BOB },
  { name: 'LOCK articles with a body (405)', method: 'LOCK', path: '/api/articles/', headers: { 'Content-Type': 'text/xml' }, body: '<x/>' },
  { name: 'SEARCH token endpoint (405)', method: 'SEARCH', path: '/api/auth/token/' },
  { name: 'POST csrf view (405 sets the cookie, ensure_csrf_cookie)', method: 'POST', path: '/api/auth/csrf/' },
  { name: 'GET csrf view with a token (varies on Cookie)', method: 'GET', path: '/api/auth/csrf/', headers: BOB },
  // 204: no Content-Type, Vary: Cookie (Django's logout reads the session).
  { name: 'logout anonymous (204)', method: 'POST', path: '/api/auth/logout/' },
  { name: 'logout with a token (204)', method: 'POST', path: '/api/auth/logout/', headers: BOB },
  { name: 'logout with a stale session cookie (204, deleted)', method: 'POST', path: '/api/auth/logout/', headers: { Cookie: 'sessionid=garbage12345' } },
  // ?format=: DRF's names are json and api; the last value counts; before authentication.
  get('?format=html anonymous on a private list (404 before 401)', '/api/articles/manual/?format=html'),
  get('?format=html with a JSON Accept (404 before 406)', '/api/whoami/?format=html', { Accept: 'application/json ;q=1' }),
  get('?format=json&format=api is the HTML page', '/api/whoami/?format=json&format=api'),
  get('?format=api&format=7 (404)', '/api/whoami/?format=api&format=7'),
  get('?format=3&format= is no format', '/api/whoami/?format=3&format='),
  get('?format=api anonymous private (401 as HTML)', '/api/private/?format=api'),
  // U+FEFF is a character; Python's whitespace (U+0085, U+001C) is stripped by int().
  get('author with a leading U+FEFF (no such author)', '/api/articles/pages/?author=%EF%BB%BFalice'),
  get('page_size with a leading U+FEFF (not a number)', '/api/articles/pages/?page_size=%EF%BB%BF2'),
  get('links keep a U+FEFF in other parameters', '/api/articles/pages/?x=%EF%BB%BF2&page=2'),
  get('page_size with U+0085 (2)', '/api/articles/pages/?page_size=%C2%852'),
  get('page with U+0085 (page 2)', '/api/articles/?page=%C2%852'),
  get('page with U+001C and U+001F (int() does not strip them: 404)', '/api/articles/?page=%1C2%1F'),
  get('offset with U+0085 (2)', '/api/articles/offset/?offset=%C2%852&limit=3'),
  get('limit with U+00A0 and U+2028', '/api/articles/offset/?limit=%C2%A03%E2%80%A8'),
  get('page with full-width digits', '/api/articles/?page=%EF%BC%92'),
  // A session cookie that holds no session is deleted (Django's session middleware).
  get('stale cookie sessionid=garbage', '/api/whoami/', { Cookie: 'sessionid=garbage' }),
  get('stale cookie sessionid= on a token-only view', '/api/schemes/token/', { Cookie: 'sessionid=' }),
  get('stale cookie quoted', '/api/private/', { Cookie: 'sessionid="quoted"' }),
  get('stale long cookie on a session view', '/api/schemes/session/', { Cookie: 'sessionid=garbage12345; csrftoken=x' }),
  get('stale long cookie on a token-only view (kept)', '/api/schemes/token/', { Cookie: 'sessionid=garbage12345' }),
  get('stale long cookie when a token answers first (kept)', '/api/whoami/', { ...BOB, Cookie: 'sessionid=garbage12345' }),
  get('stale cookie with ?format=xml (404, deleted)', '/api/articles/?format=xml', { Cookie: 'sessionid=bad' }),
  { name: 'stale cookie on POST articles anonymous', method: 'POST', path: '/api/articles/', headers: { Cookie: 'sessionid=x', 'Content-Type': 'application/json' }, body: '{}' },
]

/** Everything, in the order sent. */
export const ALL_REQUESTS: readonly ExchangeRequest[] = [...IDENTITY_REQUESTS, ...TOKEN_REQUESTS, ...SESSION_REQUESTS, ...WIRE_REQUESTS]
