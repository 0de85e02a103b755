import type { ExchangeRequest } from './http-exchange.js'
import { BOB_TOKEN, CREDENTIALS, PAGINATED_ARTICLE_ROUTES } from './requests.js'

/**
 * Requests a browser (or a client asking for `text/html`) sends to the reference API,
 * to gatehouse and to the DRF oracle in this order: every route, successes and the
 * error answers (401, 403, 404, 405, 400, 415, 406), pages and cursors, HEAD, OPTIONS
 * and the `?format=` override. Each server starts on a fresh seed (the article POST
 * creates one).
 */

export const HTML = 'text/html'
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

const auth = (name: string): Record<string, string> => ({ Authorization: CREDENTIALS[name] ?? '' })

const html = (name: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): ExchangeRequest => ({
  name: `${method} ${path} ${name}`,
  method,
  path,
  headers: { Accept: HTML, ...headers },
  ...(body === undefined ? {} : { body }),
})

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' }
const BOB = { Authorization: `Token ${BOB_TOKEN}` }

const LIST_ROUTES = [...PAGINATED_ARTICLE_ROUTES, '/api/articles/all/']

export const HTML_REQUESTS: readonly ExchangeRequest[] = [
  // Identity: 200, 401 (with each scheme's challenge), 403.
  html('anonymous', '/api/whoami/'),
  html('token bob', '/api/whoami/', auth('token bob')),
  html('basic alice', '/api/whoami/', auth('basic alice')),
  html('unknown token (401)', '/api/whoami/', auth('token unknown')),
  html('malformed basic (401)', '/api/whoami/', auth('basic bad base64')),
  html('anonymous (401)', '/api/private/'),
  html('token bob', '/api/private/', auth('token bob')),
  html('basic alice (403)', '/api/staff/', auth('basic alice')),
  html('basic admin', '/api/staff/', auth('basic admin')),
  html('no credentials (401 Basic)', '/api/schemes/basic/'),
  html('wrong password (401)', '/api/schemes/basic/', auth('basic alice wrong password')),
  html('basic alice', '/api/schemes/basic/', auth('basic alice')),
  html('no credentials (401 Token)', '/api/schemes/token/'),
  html('inactive (401)', '/api/schemes/token/', auth('token carol (inactive)')),
  html('unknown bearer (401 Bearer)', '/api/schemes/bearer/', auth('bearer unknown')),
  html('no credentials (403)', '/api/schemes/session/'),
  html('no credentials (403)', '/api/schemes/session/', {}, 'POST'),
  html('no header (403)', '/api/schemes/remote-user/'),
  html('alice', '/api/schemes/remote-user/', { 'X-Remote-User': 'alice' }),
  html('unknown (403: no challenge)', '/api/schemes/custom/', { 'X-Username': 'ghost' }),
  html('no credentials (403)', '/api/schemes/session-basic/'),
  html('no credentials (401)', '/api/schemes/basic-session/'),
  // Methods.
  html('anonymous (405)', '/api/whoami/', {}, 'DELETE'),
  html('anonymous (401 before 405)', '/api/private/', {}, 'PUT'),
  html('bob (405)', '/api/private/', BOB, 'PUT'),
  html('anonymous', '/api/whoami/', {}, 'OPTIONS'),
  html('anonymous (401)', '/api/private/', {}, 'OPTIONS'),
  html('anonymous', '/api/articles/', {}, 'OPTIONS'),
  html('anonymous', '/api/auth/csrf/', {}, 'OPTIONS'),
  html('anonymous', '/api/auth/logout/', {}, 'OPTIONS'),
  // OPTIONS in JSON: renders lists text/html (the default renderers), the token view JSON only.
  { ...html('in JSON', '/api/whoami/', {}, 'OPTIONS'), headers: {} },
  { ...html('in JSON', '/api/schemes/session/', {}, 'OPTIONS'), headers: {} },
  // OPTIONS lists the POST fields (`actions`) only for a requester allowed to POST.
  { ...html('in JSON, actions', '/api/auth/token/', {}, 'OPTIONS'), headers: {} },
  { ...html('in JSON, no actions (anonymous)', '/api/articles/', {}, 'OPTIONS'), headers: {} },
  { ...html('in JSON, actions (bob)', '/api/articles/', BOB, 'OPTIONS'), headers: BOB },
  html('anonymous', '/api/whoami/', {}, 'HEAD'),
  html('anonymous (401)', '/api/private/', {}, 'HEAD'),
  // Negotiation and the ?format= override.
  { ...html('browser Accept', '/api/whoami/'), headers: { Accept: BROWSER_ACCEPT } },
  { ...html('browser Accept (401)', '/api/private/'), headers: { Accept: BROWSER_ACCEPT } },
  { ...html('browser Accept (404 invalid page)', '/api/articles/?page=99'), headers: { Accept: BROWSER_ACCEPT } },
  { ...html('Accept text/* (HTML)', '/api/whoami/'), headers: { Accept: 'text/*' } },
  { ...html('Accept text/html, application/json (JSON first)', '/api/whoami/'), headers: { Accept: 'text/html, application/json' } },
  { ...html('?format=api, no Accept', '/api/whoami/?format=api'), headers: {} },
  { ...html('?format=api, no Accept (401)', '/api/private/?format=api'), headers: {} },
  { ...html('?format=api, Accept JSON (406)', '/api/whoami/?format=api'), headers: { Accept: 'application/json' } },
  html('?format=json (406 in JSON)', '/api/whoami/?format=json'),
  html('?format=xml (404 in JSON)', '/api/whoami/?format=xml'),
  html('?format=xml anonymous (404 before 401)', '/api/private/?format=xml'),
  { ...html('Accept application/xml (406 before 401)', '/api/private/'), headers: { Accept: 'application/xml' } },
  // Sessions, CSRF, login, logout.
  { ...html('session alice', '/api/whoami/'), session: { username: 'alice', csrf: false } },
  { ...html('session alice (403)', '/api/staff/'), session: { username: 'alice', csrf: false } },
  { ...html('session alice without CSRF (403)', '/api/schemes/session/', {}, 'POST'), session: { username: 'alice', csrf: false } },
  { ...html('session alice with CSRF', '/api/schemes/session/', {}, 'POST'), session: { username: 'alice', csrf: true } },
  html('anonymous', '/api/auth/csrf/'),
  html('no CSRF cookie (403)', '/api/auth/login/', FORM, 'POST', 'username=alice&password=alice-pass-1'),
  {
    ...html('wrong password with CSRF (400)', '/api/auth/login/', FORM, 'POST', 'username=alice&password=nope'),
    session: { username: 'bob', csrf: true },
  },
  html('GET (405)', '/api/auth/login/'),
  html('anonymous (204 shown, 200 sent)', '/api/auth/logout/', {}, 'POST'),
  // The token endpoint renders JSON only (DRF's ObtainAuthToken).
  html('Accept text/html alone (406 in JSON)', '/api/auth/token/', FORM, 'POST', 'username=alice&password=alice-pass-1'),
  { ...html('browser Accept (JSON)', '/api/auth/token/', FORM, 'POST', 'username=alice&password=alice-pass-1'), headers: { ...FORM, Accept: BROWSER_ACCEPT } },
  html('GET (406 before 405)', '/api/auth/token/'),
  // Articles: every list route, pages, cursors and their errors.
  ...LIST_ROUTES.map((path) => html('anonymous', path)),
  html('page 2', '/api/articles/?page=2'),
  html('last page', '/api/articles/?page=last'),
  html('invalid page (404)', '/api/articles/?page=99'),
  html('invalid page (404)', '/api/articles/?page=abc'),
  html('page_size 3, page 2', '/api/articles/pages/?page_size=3&page=2'),
  html('limit 5 offset 135', '/api/articles/offset/?limit=5&offset=135'),
  html('invalid cursor (404)', '/api/articles/cursor/?cursor=zzz'),
  html('invalid cursor (404)', '/api/articles/cursor-score/?cursor=%E2%82%AC'),
  html('ordering -score, page 2', '/api/articles/ordered/?ordering=-score&page=2'),
  html('ordering unknown field (by id)', '/api/articles/ordered/?ordering=author'),
  html('ordering -score', '/api/articles/cursor-ordered/?ordering=-score'),
  html('ordering unknown field (-created)', '/api/articles/cursor-ordered/?ordering=title'),
  html('page 2 (Link header shown)', '/api/articles/link-header/?page=2'),
  html('invalid page (404)', '/api/articles/link-header/?page=99'),
  html('page 14', '/api/articles/nested/?page=14'),
  html('invalid page (404)', '/api/articles/manual/?page=29'),
  html('author bob', '/api/articles/all/?author=bob'),
  html('anonymous (405)', '/api/articles/', {}, 'DELETE'),
  html('anonymous form (401)', '/api/articles/', FORM, 'POST', 'title=x&score=1'),
  html('bob form without score (400)', '/api/articles/', { ...BOB, ...FORM }, 'POST', 'title=x'),
  html('bob text/plain (415)', '/api/articles/', { ...BOB, 'Content-Type': 'text/plain' }, 'POST', 'title=x'),
  html('bob malformed JSON (400)', '/api/articles/', { ...BOB, 'Content-Type': 'application/json' }, 'POST', '{"title": '),
  html('bob form (201)', '/api/articles/', { ...BOB, ...FORM }, 'POST', 'title=From+a+form&score=3'),
  // Not an API view: both frameworks answer their own 404 page.
  { ...html('unknown URL (404)', '/api/nope/'), statusOnly: true },
  { ...html('no slash (404)', '/api/private'), statusOnly: true },
]
