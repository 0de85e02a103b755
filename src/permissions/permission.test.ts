import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import type { PolicyContext } from '../core/policy-context.js'
import { anonymousUser, type User } from '../core/user.js'
import { AllowAny } from './allow-any.js'
import { IsAdminUser } from './is-admin-user.js'
import { IsAuthenticatedOrReadOnly } from './is-authenticated-or-read-only.js'
import { IsAuthenticated } from './is-authenticated.js'
import { and, not, or, type Permission } from './permission.js'
import type { AuthenticationScheme } from '../core/authentication-scheme.js'
import { NotAuthenticated, PermissionDenied } from '../core/errors.js'
import { checkObjectPermissions } from '../core/object-permissions.js'
import type { RequestContext } from '../core/pipeline.js'
import { resolveSettings } from '../core/settings.js'
import { IsOwnerOrReadOnly } from './is-owner-or-read-only.js'
import { ReadOnly } from './read-only.js'
import { isSafeMethod, SAFE_METHODS } from './safe-methods.js'

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

describe('object permissions (DRF has_object_permission)', () => {
  const article = { authorId: 1 }
  const isAuthor = new IsOwnerOrReadOnly<typeof article>({ owner: (a) => a.authorId, message: 'Only the author may change this article.' })
  const yes: Permission = { hasPermission: () => true }
  const noObject: Permission = { hasPermission: () => true, hasObjectPermission: () => false }

  it.each<[string, Permission, User, string, boolean]>([
    ['IsOwnerOrReadOnly: anyone reads', isAuthor, anonymousUser(), 'GET', true],
    ['IsOwnerOrReadOnly: the owner writes', isAuthor, member, 'PUT', true],
    ['IsOwnerOrReadOnly: another user may not write', isAuthor, staff, 'DELETE', false],
    ['IsOwnerOrReadOnly: an anonymous user owns nothing', isAuthor, anonymousUser(), 'PATCH', false],
    ['a permission without an object half allows (BasePermission)', yes, anonymousUser(), 'DELETE', true],
    ['not() of a permission without an object half refuses every object (DRF 3.14 ~)', not(yes), member, 'GET', false],
    ['or(): IsAdminUser has no object half, but a member fails its request half', or(new IsAdminUser(), noObject), member, 'PUT', false],
    ['or(): staff passes IsAdminUser on both halves', or(new IsAdminUser(), noObject), staff, 'PUT', true],
    ['and(): every object half', and(yes, noObject), staff, 'GET', false],
  ])('%s', async (_name, permission, user, method, allowed) => {
    expect(await (permission.hasObjectPermission?.(ctx(user, method), article) ?? true)).toBe(allowed)
  })

  it('IsOwnerOrReadOnly lets every request through its request half, and carries its message', () => {
    expect(isAuthor.hasPermission()).toBe(true)
    expect(isAuthor.message).toBe('Only the author may change this article.')
    expect(new IsOwnerOrReadOnly({ owner: () => 1 }).message).toBeUndefined()
  })

  it('ReadOnly allows the safe methods only; isSafeMethod is DRF SAFE_METHODS (not TRACE)', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'POST', 'TRACE'].map((m) => new ReadOnly().hasPermission(ctx(member, m)))).toEqual([true, true, true, false, false])
    expect(isSafeMethod(ctx(member, 'TRACE'))).toBe(false)
    expect(SAFE_METHODS).toEqual(['GET', 'HEAD', 'OPTIONS'])
  })
})

describe('checkObjectPermissions (DRF check_object_permissions)', () => {
  const scheme: AuthenticationScheme = { authenticate: async () => null, authenticateHeader: () => 'Token' }
  function state(user: User, permissions: readonly Permission[], authenticated: boolean, schemes: readonly AuthenticationScheme[] = [scheme]): RequestContext {
    const settings = resolveSettings({ authentication: schemes, permissions })
    return { ...ctx(user, 'PUT'), settings, authenticator: authenticated ? scheme : null, credentialExpiresAt: null, vary: [], format: 'json', params: {} }
  }
  const refuse = (message?: string): Permission => ({ hasPermission: () => true, hasObjectPermission: () => false, ...(message === undefined ? {} : { message, code: 'not_author' }) })

  it('passes when every permission allows the object', async () => {
    await expect(checkObjectPermissions(state(member, [new AllowAny(), { hasPermission: () => true, hasObjectPermission: async () => true }], true), {})).resolves.toBeUndefined()
  })

  it('refuses with the first refusing permission: 403 with its message and code when authenticated', async () => {
    const error = await checkObjectPermissions(state(member, [new AllowAny(), refuse('mine'), refuse('theirs')], true), {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PermissionDenied)
    expect((error as PermissionDenied).detail).toBe('mine')
    expect((error as PermissionDenied).code).toBe('not_author')
  })

  it("403 carrying the refusing permission's deniedHeaders", async () => {
    const headed: Permission = { ...refuse('mine'), deniedHeaders: () => [['WWW-Authenticate', 'Bearer error="insufficient_scope"']] }
    const error = await checkObjectPermissions(state(member, [headed], true), {}).catch((e: unknown) => e)
    expect((error as PermissionDenied).headers).toEqual([['WWW-Authenticate', 'Bearer error="insufficient_scope"']])
  })

  it("403 with DRF's default message when the permission has none", async () => {
    const error = await checkObjectPermissions(state(member, [refuse()], true), {}).catch((e: unknown) => e)
    expect((error as PermissionDenied).detail).toBe('You do not have permission to perform this action.')
  })

  it('401 for an anonymous request on a route with schemes, 403 on a route without', async () => {
    await expect(checkObjectPermissions(state(anonymousUser(), [refuse('mine')], false), {})).rejects.toBeInstanceOf(NotAuthenticated)
    await expect(checkObjectPermissions(state(anonymousUser(), [refuse('mine')], false, []), {})).rejects.toBeInstanceOf(PermissionDenied)
  })

  it('passes the object it was given to each permission', async () => {
    const seen: unknown[] = []
    const object = { id: 7 }
    await checkObjectPermissions(state(member, [{ hasPermission: () => true, hasObjectPermission: (_c, o) => (seen.push(o), true) }], true), object)
    expect(seen).toEqual([object])
  })
})
