/**
 * Every signed or secret value a client hands back, shortened, truncated or lengthened, is
 * refused: JWT signatures, CSRF tokens, the session's auth hash, token keys and named token
 * keys (cursors: src/pagination/cursor-codec.test.ts). A comparison that only walks the
 * shorter side would accept a prefix of the real value, or one character of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PermissionDenied } from '../../src/core/errors.js'
import { resolveCsrfOptions, enforceCsrf, maskCsrfSecret, newCsrfSecret } from '../../src/authentication/csrf.js'
import { sessionAuthHashMatches, SESSION_AUTH_HASH_KEY } from '../../src/authentication/session-auth-hash.js'
import { sessionAuthHashOf } from '../../src/crypto/session-auth-hash.js'
import { JwtCodec } from '../../src/jwt/jwt-codec.js'
import { resolveJwtSettings } from '../../src/jwt/jwt-settings.js'
import { TokenError } from '../../src/jwt/token-error.js'
import { KyselyNamedTokenStore } from '../../src/kysely/kysely-named-token-store.js'
import { KyselyTokenStore } from '../../src/kysely/kysely-token-store.js'
import { KyselyUserStore } from '../../src/kysely/kysely-user-store.js'
import { openAuthDatabase, type AuthTestDatabase } from '../helpers/auth-database.js'
import { buildRequest } from '../helpers/build-request.js'
import { freshSqlite } from '../helpers/databases.js'

/** The shortened, truncated and lengthened forms of `value` (never `value` itself). */
function mangled(value: string): string[] {
  return [value.slice(0, -1), value.slice(0, 1), value.slice(0, Math.floor(value.length / 2)), `${value}A`, `${value}${value.slice(-1)}`]
}

describe('JWT: a shortened or truncated signature is refused', () => {
  const codec = new JwtCodec(resolveJwtSettings({ signingKey: 'unit-test-signing-key-0123456789abcdef' }), () => 1_700_000_000)

  it('HS256 access token', async () => {
    const token = await codec.encode({ ...codec.newPayload('access', 1_700_000_000, 300), user_id: 2 })
    expect(await codec.decode(token, 'access')).toMatchObject({ user_id: 2 })
    const [header = '', payload = '', signature = ''] = token.split('.')
    const variants = [...mangled(signature).map((s) => `${header}.${payload}.${s}`), `${header}.${payload}.`, token.slice(0, -1)]
    for (const variant of variants) await expect(codec.decode(variant, 'access'), variant).rejects.toBeInstanceOf(TokenError)
  })
})

describe('CSRF: a shortened or truncated token is refused', () => {
  const options = resolveCsrfOptions()
  const post = (cookie: string, token: string): Promise<void> =>
    enforceCsrf(buildRequest({ method: 'POST', headers: { cookie: `csrftoken=${cookie}`, 'x-csrftoken': token } }), options)

  it('the masked token and the bare secret, in the header', async () => {
    const secret = newCsrfSecret()
    const masked = maskCsrfSecret(secret)
    await expect(post(secret, masked)).resolves.toBeUndefined()
    await expect(post(secret, secret)).resolves.toBeUndefined()
    for (const token of [...mangled(masked), ...mangled(secret)]) await expect(post(secret, token), token).rejects.toBeInstanceOf(PermissionDenied)
  })

  it('a shortened cookie does not match the full token either', async () => {
    const secret = newCsrfSecret()
    for (const cookie of mangled(secret)) await expect(post(cookie, maskCsrfSecret(secret)), cookie).rejects.toBeInstanceOf(PermissionDenied)
  })
})

describe('the session auth hash: a shortened or truncated hash is refused', () => {
  it('as sessionAuthHashMatches reads it from the session', () => {
    const expected = sessionAuthHashOf('scrypt$16384$8$1$salt$hash')
    expect(sessionAuthHashMatches({ [SESSION_AUTH_HASH_KEY]: expected }, expected)).toBe(true)
    for (const stored of mangled(expected)) expect(sessionAuthHashMatches({ [SESSION_AUTH_HASH_KEY]: stored }, expected), stored).toBe(false)
  })
})

describe('token keys: a shortened or truncated key finds no token', () => {
  let auth: AuthTestDatabase
  beforeAll(async () => {
    auth = await openAuthDatabase(freshSqlite())
  })
  afterAll(async () => auth.close())

  it('DRF tokens (KyselyTokenStore) and named tokens (KyselyNamedTokenStore)', async () => {
    const user = await new KyselyUserStore({ db: auth.db }).create({ username: 'alice', password: null })
    const tokens = new KyselyTokenStore({ db: auth.db })
    const { key } = await tokens.getOrCreate(user.id)
    expect(await tokens.findByKey(key)).not.toBeNull()
    for (const variant of mangled(key)) expect(await tokens.findByKey(variant), variant).toBeNull()

    const named = new KyselyNamedTokenStore({ db: auth.db })
    const created = await named.create(user.id, { name: 'laptop', expiresAt: null })
    expect(await named.findByKey(created.key)).not.toBeNull()
    for (const variant of mangled(created.key)) expect(await named.findByKey(variant), variant).toBeNull()
  })
})
