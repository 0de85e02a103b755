/**
 * usersByClaim alone, against an in-memory lookup: which claim names the account, that nothing
 * stands in for a missing claim, that an unverified email names no one, and that a staff or
 * superuser account is reached only when the app allows it. Over HTTP, on the four frameworks:
 * test/conformance/oauth2.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { StoredUser } from '../core/user.js'
import { OAuth2AccessToken } from './access-token.js'
import { usersByClaim } from './users-by-claim.js'

const account = (id: number, username: string, flags: Partial<Pick<StoredUser, 'isStaff' | 'isSuperuser' | 'isActive'>> = {}): StoredUser => ({
  id,
  username,
  isActive: true,
  isStaff: false,
  isAuthenticated: true,
  ...flags,
})

const ACCOUNTS: readonly StoredUser[] = [
  account(1, 'user-123'),
  account(2, 'alice@corp.example'),
  account(3, 'root@corp.example', { isStaff: true, isSuperuser: true }),
  account(4, 'staff@corp.example', { isStaff: true }),
  // Reachable through revoke-staff, grant-superuser on a plain user, or import-django.
  account(5, 'super@corp.example', { isSuperuser: true }),
  account(6, 'the-client'),
  account(7, 'root-sub', { isStaff: true, isSuperuser: true }),
]

/** What a lookup was asked, to show a refused token named no one (not merely got `null` back). */
function store(): { findByUsername(name: string): Promise<StoredUser | null>; asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    findByUsername: async (name) => {
      asked.push(name)
      return ACCOUNTS.find((a) => a.username === name) ?? null
    },
  }
}

const token = (claims: Record<string, unknown>): OAuth2AccessToken => new OAuth2AccessToken({ token: 'raw', format: 'jwt', claims, scopes: [] })

describe('usersByClaim', () => {
  it('maps sub (the default) to the account of that username; an unknown one to null', async () => {
    const users = store()
    const map = usersByClaim(users)
    expect((await map(token({ sub: 'user-123', email: 'root@corp.example', email_verified: true })))?.id).toBe(1)
    expect(await map(token({ sub: 'nobody' }))).toBeNull()
    expect(users.asked).toEqual(['user-123', 'nobody'])
  })

  it('by email: only with email_verified exactly true (false, "true", absent: nobody is looked up)', async () => {
    const users = store()
    const map = usersByClaim(users, 'email')
    expect((await map(token({ sub: 'x', email: 'alice@corp.example', email_verified: true })))?.id).toBe(2)
    for (const verified of [false, 'true', 1, null, undefined]) {
      expect(await map(token({ sub: 'x', email: 'alice@corp.example', email_verified: verified })), String(verified)).toBeNull()
    }
    expect(users.asked).toEqual(['alice@corp.example'])
  })

  it('the issue\'s attack: an unverified email naming a superuser gets no account', async () => {
    const map = usersByClaim(store(), 'email', { allowPrivileged: true })
    expect(await map(token({ sub: 'attacker-123', email: 'root@corp.example', email_verified: false }))).toBeNull()
  })

  it('a staff, superuser (staff or not) account is refused unless allowPrivileged, whatever the claim', async () => {
    const verified = (email: string) => token({ sub: 's', email, email_verified: true })
    const byEmail = usersByClaim(store(), 'email')
    for (const email of ['root@corp.example', 'staff@corp.example', 'super@corp.example']) expect(await byEmail(verified(email)), email).toBeNull()
    expect(await usersByClaim(store())(token({ sub: 'root-sub' }))).toBeNull()
    const allowed = usersByClaim(store(), 'email', { allowPrivileged: true })
    expect((await allowed(verified('root@corp.example')))?.id).toBe(3)
    expect((await allowed(verified('staff@corp.example')))?.id).toBe(4)
    expect((await allowed(verified('super@corp.example')))?.id).toBe(5)
    expect((await usersByClaim(store(), 'sub', { allowPrivileged: true })(token({ sub: 'root-sub' })))?.id).toBe(7)
    // allowPrivileged: false is the default spelled out.
    expect(await usersByClaim(store(), 'sub', { allowPrivileged: false })(token({ sub: 'root-sub' }))).toBeNull()
  })

  it('a missing, empty or non-string claim names no one: never client_id, azp, sub or any other claim in its place', async () => {
    const users = store()
    // Every other name-like claim of these tokens names an existing account.
    const others = { client_id: 'the-client', azp: 'the-client', cid: 'the-client', appid: 'the-client', preferred_username: 'alice@corp.example', upn: 'alice@corp.example' }
    const bySub = usersByClaim(users)
    expect(await bySub(token({ ...others }))).toBeNull()
    expect(await bySub(token({ ...others, sub: '' }))).toBeNull()
    expect(await bySub(token({ ...others, sub: ['user-123'] }))).toBeNull()
    expect(await bySub(token({ ...others, sub: 123 }))).toBeNull()
    const byEmail = usersByClaim(users, 'email')
    expect(await byEmail(token({ ...others, sub: 'user-123', email_verified: true }))).toBeNull()
    const byName = usersByClaim(users, 'preferred_username', { allowPrivileged: true })
    expect(await byName(token({ sub: 'user-123', client_id: 'the-client', email: 'alice@corp.example', email_verified: true }))).toBeNull()
    expect(users.asked).toEqual([])
  })
})
