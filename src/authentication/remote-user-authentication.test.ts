import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import { FakeUserStore } from '../../test/helpers/fake-auth-stores.js'
import { ConfigurationError } from '../core/errors.js'
import type { StoredUser } from '../core/user.js'
import { RemoteUserAuthentication, type RemoteUserAuthenticationOptions } from './remote-user-authentication.js'

function scheme(options: Partial<RemoteUserAuthenticationOptions> = {}, users = new FakeUserStore()): RemoteUserAuthentication {
  return new RemoteUserAuthentication({ users, header: 'X-Remote-User', trustedAddresses: ['127.0.0.1'], ...options })
}

async function run(value: string | undefined, s = scheme(), remoteAddress: string | null = '127.0.0.1'): Promise<string | null> {
  const req = buildRequest({ headers: value === undefined ? {} : { 'X-Remote-User': value }, remoteAddress })
  const result = await s.authenticate(req)
  return result === null ? null : result.user.username
}

describe('RemoteUserAuthentication', () => {
  it('an existing active user authenticates, auth is null', async () => {
    const result = await scheme().authenticate(buildRequest({ headers: { 'x-remote-user': 'alice' } }))
    expect(result?.user.username).toBe('alice')
    expect(result?.auth).toBeNull()
  })

  it.each([
    ['missing header', undefined],
    ['empty header', ''],
    ['inactive user', 'carol'],
    ['name too long to store', 'x'.repeat(151)],
  ])('%s → not attempted (never throws)', async (_name, value) => {
    expect(await run(value)).toBeNull()
  })

  it('creates an unknown user by default (Django RemoteUserBackend), with no usable password', async () => {
    const users = new FakeUserStore()
    expect(await run('newbie', scheme({}, users))).toBe('newbie')
    const created = users.users.find((u) => u.username === 'newbie')
    expect(created).toMatchObject({ password: null, isActive: true, isStaff: false })
    // Second request: the same user, not a second one.
    expect(await run('newbie', scheme({}, users))).toBe('newbie')
    expect(users.users.filter((u) => u.username === 'newbie')).toHaveLength(1)
  })

  it('names are case-sensitive', async () => {
    const users = new FakeUserStore()
    expect(await run('Alice', scheme({}, users))).toBe('Alice')
    expect(users.users.map((u) => u.username)).toContain('Alice')
  })

  it('creates no user whose name is not NFKC-normal (ａｄｍｉｎ is not admin, and is not made beside it; issue 36 item 6)', async () => {
    const users = new FakeUserStore()
    expect(await run('ａｄｍｉｎ', scheme({}, users))).toBeNull()
    expect(await run('of\uFB01ce', scheme({}, users))).toBeNull()
    expect(users.users.map((u) => u.username)).toEqual(['alice', 'bob', 'carol', 'admin'])
  })

  it('createUnknownUser: false matches existing users only', async () => {
    const users = new FakeUserStore()
    const s = scheme({ createUnknownUser: false }, users)
    expect(await run('ghost', s)).toBeNull()
    expect(users.users.some((u) => u.username === 'ghost')).toBe(false)
    expect(await run('bob', s)).toBe('bob')
  })

  it('trustedAddresses: the header counts only from those peers', async () => {
    const s = scheme({ trustedAddresses: ['10.0.0.5'] })
    expect(await run('alice', s, '10.0.0.5')).toBe('alice')
    expect(await run('alice', s, '127.0.0.1')).toBeNull()
    expect(await run('alice', s, null)).toBeNull()
  })

  it('trustedAddresses: an IPv4-mapped IPv6 peer (dual-stack socket) is the IPv4 address', async () => {
    expect(await run('alice', scheme({ trustedAddresses: ['10.0.0.5'] }), '::ffff:10.0.0.5')).toBe('alice')
    expect(await run('alice', scheme({ trustedAddresses: ['::ffff:10.0.0.5'] }), '10.0.0.5')).toBe('alice')
    expect(await run('alice', scheme({ trustedAddresses: ['::1'] }), '::1')).toBe('alice')
    expect(await run('alice', scheme({ trustedAddresses: ['FE80::1'] }), 'fe80::1')).toBe('alice')
    expect(await run('alice', scheme({ trustedAddresses: ['10.0.0.5'] }), '::ffff:10.0.0.6')).toBeNull()
  })

  it('requires trustedAddresses or trustAnyClient: a ConfigurationError naming the option', () => {
    const users = new FakeUserStore()
    expect(() => new RemoteUserAuthentication({ users, header: 'X-Remote-User' })).toThrow(/trustedAddresses.*trustAnyClient/)
    expect(() => new RemoteUserAuthentication({ users, header: 'X-Remote-User', trustedAddresses: [] })).toThrow(ConfigurationError)
    for (const bad of ['', 'localhost', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8x', '::1/129', '300.1.1.1']) {
      expect(() => scheme({ trustedAddresses: [bad] }), bad).toThrow(new RegExp(`"${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`))
    }
  })

  it('trustAnyClient: true believes every peer, even one with no address', async () => {
    const s = new RemoteUserAuthentication({ users: new FakeUserStore(), header: 'X-Remote-User', trustAnyClient: true })
    expect(await run('alice', s, '203.0.113.9')).toBe('alice')
    expect(await run('alice', s, null)).toBe('alice')
  })

  it('trustedAddresses takes CIDR ranges, IPv4 and IPv6', async () => {
    const s = scheme({ trustedAddresses: ['10.0.0.0/8', 'fd00::/8'] })
    expect(await run('alice', s, '10.200.3.4')).toBe('alice')
    expect(await run('alice', s, '::ffff:10.1.1.1')).toBe('alice')
    expect(await run('alice', s, 'fd12:3456::1')).toBe('alice')
    expect(await run('alice', s, '11.0.0.1')).toBeNull()
    expect(await run('alice', s, 'fe80::1')).toBeNull()
    expect(await run('alice', s, 'not-an-address')).toBeNull()
  })

  it('from an untrusted peer nothing is created', async () => {
    const users = new FakeUserStore()
    expect(await run('intruder', scheme({}, users), '198.51.100.7')).toBeNull()
    expect(users.users.some((u) => u.username === 'intruder')).toBe(false)
  })

  it('a lost creation race re-reads the user the other request created', async () => {
    const users = new FakeUserStore()
    const realCreate = users.create.bind(users)
    users.create = async (user): Promise<StoredUser> => {
      await realCreate(user) // the "other" request wins the race...
      throw new Error('duplicate key value violates unique constraint') // ...and this insert fails
    }
    expect(await run('racer', scheme({}, users))).toBe('racer')
  })

  it('a store failure that is not a race propagates (a server error, not "anonymous")', async () => {
    const users = new FakeUserStore()
    users.create = async (): Promise<StoredUser> => {
      throw new Error('disk full')
    }
    await expect(run('nobody', scheme({}, users))).rejects.toThrow('disk full')
  })
})
