import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore, SEED_USERS } from '../../test/helpers/fake-auth-stores.js'
import { AuthenticationFailed } from '../core/errors.js'
import { BasicAuthentication } from './basic-authentication.js'

const b64 = (text: string, encoding: BufferEncoding = 'utf8'): string => Buffer.from(text, encoding).toString('base64')

function setup(users = new FakeUserStore()): { scheme: BasicAuthentication; users: FakeUserStore } {
  return { scheme: new BasicAuthentication({ users }), users }
}

async function run(header: string | undefined, users?: FakeUserStore): Promise<string | null> {
  const { scheme } = setup(users)
  const result = await scheme.authenticate(buildRequest({ headers: header === undefined ? {} : { Authorization: header } }))
  return result === null ? null : result.user.username
}

describe('BasicAuthentication: not attempted', () => {
  it.each([
    ['no header', undefined],
    ['empty header', ''],
    ['whitespace only', ' \t '],
    ['other scheme', `Token ${b64('alice:alice-pass-1')}`],
    ['scheme as a prefix only', `Basicx ${b64('alice:alice-pass-1')}`],
  ])('%s → null', async (_name, header) => {
    expect(await run(header)).toBeNull()
  })
})

describe('BasicAuthentication: drf-behaviors §3.1 failures', () => {
  it.each([
    ['Basic', 'Invalid basic header. No credentials provided.'],
    ['Basic   ', 'Invalid basic header. No credentials provided.'],
    ['Basic a b', 'Invalid basic header. Credentials string should not contain spaces.'],
    ['Basic =a=', 'Invalid basic header. Credentials not correctly base64 encoded.'],
    ['Basic abc', 'Invalid basic header. Credentials not correctly base64 encoded.'],
    ['Basic a', 'Invalid basic header. Credentials not correctly base64 encoded.'],
    // 3.14: no colon → whole text is the user id, password "" → the backend refuses.
    [`Basic ${b64('alice')}`, 'Invalid username/password.'],
    [`Basic ${b64('')}====`, 'Invalid username/password.'],
    [`Basic ${b64('alice:wrong')}`, 'Invalid username/password.'],
    [`Basic ${b64('ghost:alice-pass-1')}`, 'Invalid username/password.'],
    [`Basic ${b64(':alice-pass-1')}`, 'Invalid username/password.'],
    // ModelBackend hides the inactive state.
    [`Basic ${b64('carol:carol-pass-3')}`, 'Invalid username/password.'],
  ])('%j → AuthenticationFailed %j', async (header, message) => {
    const error = await run(header).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AuthenticationFailed)
    expect((error as AuthenticationFailed).detail).toBe(message)
    expect((error as AuthenticationFailed).status).toBe(401)
  })

  it('no colon passes the whole text as the user id with an empty password (3.14)', async () => {
    const users = new FakeUserStore()
    await run(`Basic ${b64('alice')}`, users).catch(() => null)
    expect(users.calls).toEqual([{ username: 'alice', password: '' }])
  })

  it('says "User inactive or deleted." when a store returns an inactive user (AllowAllUsersModelBackend)', async () => {
    const users = new FakeUserStore()
    users.authenticate = async (username) => {
      const u = await users.findByUsername(username)
      return u
    }
    const error = await run(`Basic ${b64('carol:whatever')}`, users).catch((e: unknown) => e)
    expect((error as AuthenticationFailed).detail).toBe('User inactive or deleted.')
  })
})

describe('BasicAuthentication: success', () => {
  it.each([
    ['plain', `Basic ${b64('alice:alice-pass-1')}`, 'alice'],
    ['lower-case scheme', `basic ${b64('alice:alice-pass-1')}`, 'alice'],
    ['mixed-case scheme and tab', `bAsIc\t${b64('alice:alice-pass-1')}`, 'alice'],
    ['several spaces', `Basic     ${b64('alice:alice-pass-1')}  `, 'alice'],
    ['junk characters dropped', `Basic ${b64('alice:alice-pass-1').slice(0, 5)}!!*${b64('alice:alice-pass-1').slice(5)}`, 'alice'],
    ['Latin-1 bytes in the base64 dropped', `Basic \xe9${b64('alice:alice-pass-1')}`, 'alice'],
    ['data after the first complete padding ignored', `Basic ${b64('bob:bob-pass-2')}YWJj`, 'bob'],
  ])('%s', async (_name, header, username) => {
    expect(await run(header)).toBe(username)
  })

  it('splits at the first colon: the password may contain colons', async () => {
    const users = new FakeUserStore([{ id: 9, username: 'dan', password: 'pw:with:colons', isActive: true, isStaff: false }])
    expect(await run(`Basic ${b64('dan:pw:with:colons')}`, users)).toBe('dan')
  })

  it('reads UTF-8 credentials, and Latin-1 ones when they are not valid UTF-8', async () => {
    const users = new FakeUserStore([{ id: 9, username: 'jürgen', password: 'pässwört', isActive: true, isStaff: false }])
    expect(await run(`Basic ${b64('jürgen:pässwört', 'utf8')}`, users)).toBe('jürgen')
    expect(await run(`Basic ${b64('jürgen:pässwört', 'latin1')}`, users)).toBe('jürgen')
  })

  it('auth is null and the user is the stored one', async () => {
    const { scheme } = setup()
    const result = await scheme.authenticate(buildRequest({ headers: { Authorization: `Basic ${b64('admin:admin-pass-4')}` } }))
    expect(result?.auth).toBeNull()
    expect(result?.user).toMatchObject({ id: SEED_USERS[3]?.id, username: 'admin', isStaff: true, isAuthenticated: true })
  })
})

describe('BasicAuthentication: challenge', () => {
  it('is Basic realm="api" by default', () => {
    expect(setup().scheme.authenticateHeader()).toBe('Basic realm="api"')
  })

  it('uses the configured realm', () => {
    expect(new BasicAuthentication({ users: new FakeUserStore(), realm: 'staff area' }).authenticateHeader()).toBe(
      'Basic realm="staff area"',
    )
  })
})
