/**
 * OAuth2AccessToken.hasScopes and the scope permissions built on it, alone: a scope is granted
 * only when the token lists it whole, never because it is part of a longer scope or of the
 * scope string (`write:drafts` is not `write`). Over HTTP: oauth2-authentication.test.ts and
 * test/conformance/oauth2.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { buildRequest } from '../../test/helpers/build-request.js'
import type { PolicyContext } from '../core/policy-context.js'
import { anonymousUser } from '../core/user.js'
import { OAuth2AccessToken } from './access-token.js'
import { TokenHasReadWriteScope, TokenHasScope } from './scope-permissions.js'

const granted = (...scopes: string[]): OAuth2AccessToken => new OAuth2AccessToken({ token: 'raw', format: 'jwt', claims: { sub: 's' }, scopes })

const context = (token: OAuth2AccessToken, method = 'GET'): PolicyContext => ({
  request: buildRequest({ method }),
  user: anonymousUser(),
  auth: token,
  view: { name: 'Notes', throttleScope: null },
})

/** Scopes that contain, start, end or spell `write` (or the pair read and write) without being it. */
const NEAR_MISSES_OF_WRITE: readonly (readonly string[])[] = [
  ['write:drafts'],
  ['drafts:write'],
  ['writer'],
  ['rewrite'],
  ['Write'],
  ['WRITE'],
  ['wri', 'te'],
  ['read', 'writes'],
  ['read write'], // one scope with a space in it (an `scp` array can hold one)
]

describe('OAuth2AccessToken.hasScopes', () => {
  it('is true for the scopes the token lists, each whole', () => {
    const token = granted('read', 'write', 'notes:read')
    expect(token.hasScopes(['write'])).toBe(true)
    expect(token.hasScopes(['read', 'write', 'notes:read'])).toBe(true)
    expect(token.hasScopes([])).toBe(true)
  })

  it('is false for a scope only part of one the token lists, or of their string', () => {
    for (const scopes of NEAR_MISSES_OF_WRITE) expect(granted(...scopes).hasScopes(['write']), JSON.stringify(scopes)).toBe(false)
    const token = granted('read', 'write')
    for (const wanted of ['rea', 'ead', 'd w', 'read write', 'read ', ' write', 'ite', '']) expect(token.hasScopes([wanted]), JSON.stringify(wanted)).toBe(false)
    // Every scope asked for must be there: one missing refuses the lot.
    expect(granted('notes:read:all', 'write').hasScopes(['notes:read', 'write'])).toBe(false)
    expect(granted('read', 'write:drafts').hasScopes(['read', 'write'])).toBe(false)
  })
})

describe('scope permissions compare whole scopes', () => {
  it("TokenHasScope('write') refuses write:drafts and the other near misses; write itself passes", () => {
    const permission = new TokenHasScope('write')
    for (const scopes of NEAR_MISSES_OF_WRITE) expect(permission.hasPermission(context(granted(...scopes), 'POST')), JSON.stringify(scopes)).toBe(false)
    expect(permission.hasPermission(context(granted('write:drafts', 'write'), 'POST'))).toBe(true)
    expect(new TokenHasScope('notes:read').hasPermission(context(granted('notes:read:all', 'notes:reader')))).toBe(false)
  })

  it('TokenHasReadWriteScope: reads need read whole, writes write whole', () => {
    const permission = new TokenHasReadWriteScope()
    expect(permission.hasPermission(context(granted('reader', 'write:drafts'), 'GET'))).toBe(false)
    expect(permission.hasPermission(context(granted('reader', 'write:drafts'), 'POST'))).toBe(false)
    expect(permission.hasPermission(context(granted('read', 'write'), 'GET'))).toBe(true)
    expect(permission.hasPermission(context(granted('read', 'write'), 'DELETE'))).toBe(true)
    const named = new TokenHasReadWriteScope({ read: 'notes:read', write: 'notes:write' })
    expect(named.hasPermission(context(granted('notes:read:own', 'notes:write:own'), 'GET'))).toBe(false)
    expect(named.hasPermission(context(granted('notes:read:own', 'notes:write:own'), 'PATCH'))).toBe(false)
  })
})
