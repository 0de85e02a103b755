import type { ExchangeRequest } from '../http-exchange.js'
import { claimsFor, postJson, signed, tampered, whoami } from './jwt-exchange.js'

/** A request of the fixed JWT list; `improvement` names the documented difference it must show (README, docs/jwt.md). */
export interface JwtCase extends ExchangeRequest {
  readonly improvement?: Improvement
}

/**
 * The documented differences from simplejwt 5.2.2 (README "Differences from DRF", docs/jwt.md):
 * - `simplejwt 500`: simplejwt fails on a validly signed token with a claim it cannot read
 *   (`user_id` "abc", `exp` a string, a refresh token without `jti`); gatehouse answers 401.
 * - `refresh of a deleted or inactive user`: 5.2.2 refreshes without looking the user up;
 *   gatehouse answers 401 no_active_account, as later simplejwt versions do.
 * - `user_id that Django coerces`: Django's query turns `user_id: true` into user 1; gatehouse
 *   takes integers and strings of digits only ("User not found").
 */
export type Improvement = 'simplejwt 500' | 'refresh of a deleted or inactive user' | 'user_id that Django coerces'

/** A pair each server minted at its obtain endpoint. */
export interface Pair {
  readonly refresh: string
  readonly access: string
}

/** Pairs minted by both servers, used against both (tokens cross at the endpoint level). */
export interface MintedPairs {
  /** alice's pair from simplejwt and from gatehouse. */
  readonly simplejwt: Pair
  readonly gatehouse: Pair
  /** bob's pairs, blacklisted during the list. */
  readonly simplejwtBob: Pair
  readonly gatehouseBob: Pair
}

const OBTAIN = '/api/jwt/'
const REFRESH = '/api/jwt/refresh/'
const VERIFY = '/api/jwt/verify/'
const BLACKLIST = '/api/jwt/blacklist/'
const OTHER_KEY = 'another-key-that-is-not-the-signing-key-0123456789'

/** Hand-made tokens, signed with the shared key unless the case says otherwise. */
export async function craftedTokens(): Promise<Record<string, string>> {
  return {
    'expired access': await signed(claimsFor('access', 1, { exp: Math.floor(Date.now() / 1000) - 10 })),
    'expired refresh': await signed(claimsFor('refresh', 1, { exp: Math.floor(Date.now() / 1000) - 10 })),
    'alg none access': await signed(claimsFor('access', 1), { alg: 'none' }),
    'alg none refresh': await signed(claimsFor('refresh', 1), { alg: 'none' }),
    'HS512 access': await signed(claimsFor('access', 1), { alg: 'HS512' }),
    'HS512 refresh': await signed(claimsFor('refresh', 1), { alg: 'HS512' }),
    'other-key access': await signed(claimsFor('access', 1), { key: OTHER_KEY }),
    'other-key refresh': await signed(claimsFor('refresh', 1), { key: OTHER_KEY }),
    'deleted-user access': await signed(claimsFor('access', 99)),
    'deleted-user refresh': await signed(claimsFor('refresh', 99)),
    'inactive-user access': await signed(claimsFor('access', 3)),
    'inactive-user refresh': await signed(claimsFor('refresh', 3)),
    'user_id "abc" access': await signed(claimsFor('access', 'abc')),
    'user_id "abc" refresh': await signed(claimsFor('refresh', 'abc')),
    'user_id "2" access': await signed(claimsFor('access', '2')),
    'user_id true access': await signed(claimsFor('access', true)),
    'user_id 2.0 access': await signed(JSON.stringify(claimsFor('access', 2)).replace('"user_id":2', '"user_id":2.0')),
    'user_id "1.0" access': await signed(claimsFor('access', '1.0')),
    'no user_id access': await signed(claimsFor('access', undefined)),
    'future iat access': await signed(claimsFor('access', 1, { iat: Math.floor(Date.now() / 1000) + 3600 })),
    'string iat access': await signed(claimsFor('access', 1, { iat: String(Math.floor(Date.now() / 1000)) })),
    'null iat access': await signed(claimsFor('access', 1, { iat: null })),
    'past nbf access': await signed(claimsFor('access', 1, { nbf: Math.floor(Date.now() / 1000) - 60 })),
    'future nbf access': await signed(claimsFor('access', 1, { nbf: Math.floor(Date.now() / 1000) + 3600 })),
    'past nbf as a string access': await signed(claimsFor('access', 1, { nbf: String(Math.floor(Date.now() / 1000) - 60) })),
    'nbf "abc" access': await signed(claimsFor('access', 1, { nbf: 'abc' })),
    'exp true access': await signed(claimsFor('access', 1, { exp: true })),
    'iat true access': await signed(claimsFor('access', 1, { iat: true })),
    'nbf true access': await signed(claimsFor('access', 1, { nbf: true })),
    'future nbf as a string access': await signed(claimsFor('access', 1, { nbf: ` ${Math.floor(Date.now() / 1000) + 3600}` })),
    'exp "abc" access': await signed(claimsFor('access', 1, { exp: 'abc' })),
    'string exp access': await signed(claimsFor('access', 1, { exp: String(Math.floor(Date.now() / 1000) + 300) })),
    'string exp refresh': await signed(claimsFor('refresh', 1, { exp: String(Math.floor(Date.now() / 1000) + 300) })),
    'no jti access': await signed(claimsFor('access', 1, { jti: undefined })),
    'no jti refresh': await signed(claimsFor('refresh', 1, { jti: undefined })),
    'no token_type access': await signed(claimsFor('access', 1, { token_type: undefined })),
    'no exp access': await signed(claimsFor('access', 1, { exp: undefined })),
    'extra claims refresh': await signed({ ...claimsFor('refresh', 2), scope: 'read', nested: { a: [1, 'b'] } }),
    // Issued an hour ago: a refreshed access token keeps this iat, which "now" cannot be mistaken for.
    'hour-old refresh': await signed(claimsFor('refresh', 1, { iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) + 3600 })),
    'hour-old refresh, rotated': await signed(claimsFor('refresh', 2, { iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) + 3600 })),
  }
}

/**
 * The fixed list, sent in this order to both servers: obtain, who-am-I, refresh, verify and
 * blacklist with tokens each server minted and hand-made ones.
 */
export function fixedJwtCases(pairs: MintedPairs, crafted: Readonly<Record<string, string>>): JwtCase[] {
  const t = (name: string): string => {
    const token = crafted[name]
    if (token === undefined) throw new Error(`no crafted token "${name}"`)
    return token
  }
  const form = (name: string, path: string, body: string): ExchangeRequest => ({ name, method: 'POST', path, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body })
  const minted: [string, Pair][] = [
    ['simplejwt', pairs.simplejwt],
    ['gatehouse', pairs.gatehouse],
  ]
  const cases: JwtCase[] = [
    // Obtain
    postJson('obtain: good', OBTAIN, { username: 'alice', password: 'alice-pass-1' }),
    form('obtain: good, form-encoded', OBTAIN, 'username=alice&password=alice-pass-1'),
    postJson('obtain: username with blanks around', OBTAIN, { username: ' alice ', password: 'alice-pass-1' }),
    postJson('obtain: wrong password', OBTAIN, { username: 'alice', password: 'nope' }),
    form('obtain: wrong password, form-encoded', OBTAIN, 'username=alice&password=nope'),
    postJson('obtain: unknown user', OBTAIN, { username: 'nobody', password: 'alice-pass-1' }),
    postJson('obtain: inactive user', OBTAIN, { username: 'carol', password: 'carol-pass-3' }),
    postJson('obtain: missing fields', OBTAIN, {}),
    postJson('obtain: missing password', OBTAIN, { username: 'alice' }),
    postJson('obtain: blank fields', OBTAIN, { username: '', password: '' }),
    postJson('obtain: null password', OBTAIN, { username: 'alice', password: null }),
    postJson('obtain: number username', OBTAIN, { username: 1, password: 'x' }),
    postJson('obtain: a list body', OBTAIN, ['alice']),
    { name: 'obtain: malformed JSON', method: 'POST', path: OBTAIN, headers: { 'Content-Type': 'application/json' }, body: '{"username":' },
    { name: 'obtain: text/plain', method: 'POST', path: OBTAIN, headers: { 'Content-Type': 'text/plain' }, body: 'alice' },
    { name: 'obtain: GET', method: 'GET', path: OBTAIN },
    { name: 'obtain: PUT', method: 'PUT', path: OBTAIN, headers: { 'Content-Type': 'application/json' }, body: '{}' },
    { name: 'obtain: OPTIONS', method: 'OPTIONS', path: OBTAIN },
    { name: 'refresh: OPTIONS', method: 'OPTIONS', path: REFRESH },
    { name: 'verify: OPTIONS', method: 'OPTIONS', path: VERIFY },
    { name: 'blacklist: OPTIONS', method: 'OPTIONS', path: BLACKLIST },
    { name: 'who-am-I: OPTIONS', method: 'OPTIONS', path: '/api/schemes/jwt/' },
    { name: 'obtain: HEAD', method: 'HEAD', path: OBTAIN },
    { name: 'obtain: good, Accept text/html', method: 'POST', path: OBTAIN, headers: { 'Content-Type': 'application/json', Accept: 'text/html' }, body: JSON.stringify({ username: 'alice', password: 'nope' }) },
    { name: 'obtain: good, Accept application/xml', method: 'POST', path: OBTAIN, headers: { 'Content-Type': 'application/json', Accept: 'application/xml' }, body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }) },
    { name: 'who-am-I: Accept text/html, no header', method: 'GET', path: '/api/schemes/jwt/', headers: { Accept: 'text/html' } },
    // Who am I (JWTAuthentication only, IsAuthenticated)
    whoami('who-am-I: no header', undefined),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access`, `Bearer ${pair.access}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s refresh used as access`, `Bearer ${pair.refresh}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access, tampered signature`, `Bearer ${tampered(pair.access)}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access, two spaces`, `Bearer  ${pair.access}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access, a tab`, `Bearer\t${pair.access}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access, lower-case keyword`, `bearer ${pair.access}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access, keyword JWT`, `JWT ${pair.access}`)),
    ...minted.map(([by, pair]) => whoami(`who-am-I: ${by}'s access and a third part`, `Bearer ${pair.access} x`)),
    ...[
      'expired access',
      'alg none access',
      'HS512 access',
      'other-key access',
      'deleted-user access',
      'inactive-user access',
      'user_id "2" access',
      'no user_id access',
      'future iat access',
      'no jti access',
      'no token_type access',
      'no exp access',
    ].map((name) => whoami(`who-am-I: ${name}`, `Bearer ${t(name)}`)),
    { ...whoami('who-am-I: user_id "abc"', `Bearer ${t('user_id "abc" access')}`), improvement: 'simplejwt 500' },
    { ...whoami('who-am-I: exp a string', `Bearer ${t('string exp access')}`), improvement: 'simplejwt 500' },
    { ...whoami('who-am-I: iat a string', `Bearer ${t('string iat access')}`), improvement: 'simplejwt 500' },
    { ...whoami('who-am-I: iat null', `Bearer ${t('null iat access')}`), improvement: 'simplejwt 500' },
    ...['past nbf access', 'future nbf access', 'past nbf as a string access', 'future nbf as a string access', 'nbf "abc" access', 'nbf true access', 'iat true access', 'exp true access', 'exp "abc" access'].map((name) => whoami(`who-am-I: ${name}`, `Bearer ${t(name)}`)),
    { ...whoami('who-am-I: user_id "1.0"', `Bearer ${t('user_id "1.0" access')}`), improvement: 'simplejwt 500' },
    { ...whoami('who-am-I: user_id true', `Bearer ${t('user_id true access')}`), improvement: 'user_id that Django coerces' },
    whoami('who-am-I: user_id 2.0', `Bearer ${t('user_id 2.0 access')}`),
    whoami('who-am-I: Bearer alone', 'Bearer'),
    whoami('who-am-I: Bearer a b', 'Bearer a b'),
    whoami('who-am-I: bearer x', 'bearer x'),
    whoami('who-am-I: JWT x', 'JWT x'),
    whoami('who-am-I: Bearer x', 'Bearer x'),
    whoami('who-am-I: empty header', ''),
    whoami('who-am-I: Bearer and Latin-1 bytes', 'Bearer \xe9\xff'),
    whoami('who-am-I: Bearer and UTF-8 bytes', `Bearer ${Buffer.from('tökén', 'utf8').toString('latin1')}`),
    whoami('who-am-I: Bearer, a dot-separated triple of garbage', 'Bearer a.b.c'),
    // Refresh
    ...minted.map(([by, pair]) => postJson(`refresh: ${by}'s refresh`, REFRESH, { refresh: pair.refresh })),
    ...minted.map(([by, pair]) => form(`refresh: ${by}'s refresh, form-encoded`, REFRESH, `refresh=${pair.refresh}`)),
    ...minted.map(([by, pair]) => postJson(`refresh: ${by}'s access used as refresh`, REFRESH, { refresh: pair.access })),
    ...minted.map(([by, pair]) => postJson(`refresh: ${by}'s refresh, tampered`, REFRESH, { refresh: tampered(pair.refresh) })),
    ...['expired refresh', 'alg none refresh', 'HS512 refresh', 'other-key refresh', 'extra claims refresh', 'hour-old refresh'].map((name) => postJson(`refresh: ${name}`, REFRESH, { refresh: t(name) })),
    { ...postJson('refresh: deleted user', REFRESH, { refresh: t('deleted-user refresh') }), improvement: 'refresh of a deleted or inactive user' },
    { ...postJson('refresh: inactive user', REFRESH, { refresh: t('inactive-user refresh') }), improvement: 'refresh of a deleted or inactive user' },
    { ...postJson('refresh: user_id "abc"', REFRESH, { refresh: t('user_id "abc" refresh') }), improvement: 'refresh of a deleted or inactive user' },
    { ...postJson('refresh: exp a string', REFRESH, { refresh: t('string exp refresh') }), improvement: 'simplejwt 500' },
    { ...postJson('refresh: no jti', REFRESH, { refresh: t('no jti refresh') }), improvement: 'simplejwt 500' },
    postJson('refresh: missing', REFRESH, {}),
    postJson('refresh: blank', REFRESH, { refresh: '' }),
    postJson('refresh: garbage', REFRESH, { refresh: 'x' }),
    { name: 'refresh: GET', method: 'GET', path: REFRESH },
    // Verify (5.2.2 ignores the blacklist: BLACKLIST_AFTER_ROTATION is off by default)
    ...minted.flatMap(([by, pair]) => [
      postJson(`verify: ${by}'s access`, VERIFY, { token: pair.access }),
      postJson(`verify: ${by}'s refresh`, VERIFY, { token: pair.refresh }),
      postJson(`verify: ${by}'s access, tampered`, VERIFY, { token: tampered(pair.access) }),
    ]),
    ...['expired access', 'alg none access', 'HS512 access', 'other-key access', 'no jti access', 'no token_type access', 'no exp access', 'future iat access', 'deleted-user access'].map((name) =>
      postJson(`verify: ${name}`, VERIFY, { token: t(name) }),
    ),
    { ...postJson('verify: exp a string', VERIFY, { token: t('string exp access') }), improvement: 'simplejwt 500' },
    postJson('verify: missing', VERIFY, {}),
    postJson('verify: garbage', VERIFY, { token: 'not a token' }),
    // Blacklist (logout), then the blacklisted tokens at refresh, verify and blacklist again
    ...(
      [
        ['simplejwt', pairs.simplejwtBob],
        ['gatehouse', pairs.gatehouseBob],
      ] as const
    ).flatMap(([by, pair]): JwtCase[] => [
      postJson(`blacklist: ${by}'s access`, BLACKLIST, { refresh: pair.access }),
      postJson(`blacklist: ${by}'s refresh`, BLACKLIST, { refresh: pair.refresh }),
      postJson(`blacklist: ${by}'s refresh, twice`, BLACKLIST, { refresh: pair.refresh }),
      postJson(`refresh: ${by}'s blacklisted refresh`, REFRESH, { refresh: pair.refresh }),
      postJson(`verify: ${by}'s blacklisted refresh`, VERIFY, { token: pair.refresh }),
      whoami(`who-am-I: the access of ${by}'s blacklisted pair`, `Bearer ${pair.access}`),
    ]),
    postJson('blacklist: expired refresh', BLACKLIST, { refresh: t('expired refresh') }),
    postJson('blacklist: other-key refresh', BLACKLIST, { refresh: t('other-key refresh') }),
    postJson('blacklist: deleted user', BLACKLIST, { refresh: t('deleted-user refresh') }),
    { ...postJson('blacklist: no jti', BLACKLIST, { refresh: t('no jti refresh') }), improvement: 'simplejwt 500' },
    postJson('blacklist: missing', BLACKLIST, {}),
  ]
  return cases
}

/**
 * The list for ROTATE_REFRESH_TOKENS with BLACKLIST_AFTER_ROTATION: refresh answers a new
 * refresh token and blacklists the one it was given, and 5.2.2's verify view then refuses a
 * blacklisted token (`400 {"non_field_errors": ["Token is blacklisted"]}`). `rotated` holds the
 * rotated refresh tokens each server answered, filled in while the list runs.
 */
export function rotationJwtCases(pairs: MintedPairs, crafted: Readonly<Record<string, string>>, rotated: ReadonlyMap<string, string>): (() => JwtCase)[] {
  const hourOld = crafted['hour-old refresh, rotated'] ?? ''
  const minted: [string, Pair][] = [
    ['simplejwt', pairs.simplejwt],
    ['gatehouse', pairs.gatehouse],
  ]
  /** The rotated refresh token answered to `name` (by gatehouse; both servers' are described alike). */
  const from = (name: string): string => {
    const token = rotated.get(name)
    if (token === undefined) throw new Error(`no rotated refresh token from "${name}"`)
    return token
  }
  return [
    () => postJson('rotation: refresh an hour-old refresh (the access keeps its iat, the new refresh is issued now)', REFRESH, { refresh: hourOld }),
    () => postJson('rotation: verify the hour-old refresh, rotated away', VERIFY, { token: hourOld }),
  ].concat(minted.flatMap(([by, pair]): (() => JwtCase)[] => [
    () => postJson(`rotation: refresh ${by}'s refresh`, REFRESH, { refresh: pair.refresh }),
    () => postJson(`rotation: refresh ${by}'s refresh again (blacklisted after rotation)`, REFRESH, { refresh: pair.refresh }),
    () => postJson(`rotation: verify ${by}'s rotated-away refresh`, VERIFY, { token: pair.refresh }),
    () => postJson(`rotation: verify ${by}'s access`, VERIFY, { token: pair.access }),
    () => postJson(`rotation: blacklist ${by}'s rotated-away refresh`, BLACKLIST, { refresh: pair.refresh }),
    () => whoami(`rotation: who-am-I with ${by}'s access`, `Bearer ${pair.access}`),
    () => postJson(`rotation: verify the refresh rotated from ${by}'s`, VERIFY, { token: from(`rotation: refresh ${by}'s refresh`) }),
    () => postJson(`rotation: refresh the refresh rotated from ${by}'s`, REFRESH, { refresh: from(`rotation: refresh ${by}'s refresh`) }),
    () => postJson(`rotation: refresh the refresh rotated from ${by}'s, again`, REFRESH, { refresh: from(`rotation: refresh ${by}'s refresh`) }),
    () => postJson(`rotation: blacklist the refresh rotated twice from ${by}'s`, BLACKLIST, { refresh: from(`rotation: refresh the refresh rotated from ${by}'s`) }),
    () => postJson(`rotation: verify the refresh rotated twice from ${by}'s, blacklisted`, VERIFY, { token: from(`rotation: refresh the refresh rotated from ${by}'s`) }),
  ]))
}
