import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import type { PolicyContext } from '../core/policy-context.js'
import { anonymousUser, type User } from '../core/user.js'
import { AllowAny } from './allow-any.js'
import { IsAdminUser } from './is-admin-user.js'
import { IsAuthenticatedOrReadOnly } from './is-authenticated-or-read-only.js'
import { IsAuthenticated } from './is-authenticated.js'
import { and, not, or, type Permission } from './permission.js'

const member: User = { id: 1, username: 'alice', isActive: true, isStaff: false, isAuthenticated: true }
const staff: User = { id: 4, username: 'admin', isActive: true, isStaff: true, isAuthenticated: true }
// A custom unauthenticated user flagged staff must still not pass IsAdminUser.
const oddAnonymous: User = { id: null, username: null, isActive: false, isStaff: true, isAuthenticated: false }

function ctx(user: User, method = 'GET'): PolicyContext {
  return { request: buildRequest({ method }), user, auth: null, view: { name: 'v', throttleScope: null } }
}

describe('built-in permissions (drf-behaviors §8)', () => {
  it.each<[string, Permission, User, string, boolean]>([
    ['AllowAny anonymous', new AllowAny(), anonymousUser(), 'POST', true],
    ['IsAuthenticated anonymous', new IsAuthenticated(), anonymousUser(), 'GET', false],
    ['IsAuthenticated member', new IsAuthenticated(), member, 'DELETE', true],
    ['IsAdminUser anonymous', new IsAdminUser(), anonymousUser(), 'GET', false],
    ['IsAdminUser odd anonymous flagged staff', new IsAdminUser(), oddAnonymous, 'GET', false],
    ['IsAdminUser member', new IsAdminUser(), member, 'GET', false],
    ['IsAdminUser staff', new IsAdminUser(), staff, 'GET', true],
    ['ReadOnly anonymous GET', new IsAuthenticatedOrReadOnly(), anonymousUser(), 'GET', true],
    ['ReadOnly anonymous HEAD', new IsAuthenticatedOrReadOnly(), anonymousUser(), 'HEAD', true],
    ['ReadOnly anonymous OPTIONS', new IsAuthenticatedOrReadOnly(), anonymousUser(), 'OPTIONS', true],
    ['ReadOnly anonymous TRACE (not safe for DRF permissions)', new IsAuthenticatedOrReadOnly(), anonymousUser(), 'TRACE', false],
    ['ReadOnly anonymous POST', new IsAuthenticatedOrReadOnly(), anonymousUser(), 'POST', false],
    ['ReadOnly member POST', new IsAuthenticatedOrReadOnly(), member, 'POST', true],
  ])('%s → %s', async (_name, permission, user, method, allowed) => {
    expect(await permission.hasPermission(ctx(user, method))).toBe(allowed)
  })

  it('built-ins set no message or code (the default 403 text is used)', () => {
    for (const p of [new AllowAny(), new IsAuthenticated(), new IsAdminUser(), new IsAuthenticatedOrReadOnly()]) {
      expect((p as Permission).message).toBeUndefined()
      expect((p as Permission).code).toBeUndefined()
    }
  })
})

describe('and / or / not', () => {
  const yes: Permission = { hasPermission: () => true }
  const no: Permission = { hasPermission: async () => false }

  it.each<[string, Permission, boolean]>([
    ['and(yes, yes)', and(yes, yes), true],
    ['and(yes, no)', and(yes, no), false],
    ['and()', and(), true],
    ['or(no, yes)', or(no, yes), true],
    ['or(no, no)', or(no, no), false],
    ['or()', or(), false],
    ['not(no)', not(no), true],
    ['not(yes)', not(yes), false],
    ['or(IsAdminUser, ReadOnly) for a member POST', or(new IsAdminUser(), new IsAuthenticatedOrReadOnly()), true],
  ])('%s → %s', async (_name, permission, expected) => {
    expect(await permission.hasPermission(ctx(member, 'POST'))).toBe(expected)
  })

  it('and / or stop at the first decisive answer', async () => {
    const calls: string[] = []
    const spy = (name: string, answer: boolean): Permission => ({ hasPermission: () => (calls.push(name), answer) })
    await and(spy('a', false), spy('b', true)).hasPermission(ctx(member))
    await or(spy('c', true), spy('d', false)).hasPermission(ctx(member))
    expect(calls).toEqual(['a', 'c'])
  })
})
