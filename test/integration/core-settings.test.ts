import { describe, expect, it } from 'vitest'
import { buildRequest } from '../helpers/build-request.js'
import type { AuthenticationScheme } from '../../src/core/authentication-scheme.js'
import { AllowAny } from '../../src/permissions/allow-any.js'
import { IsAuthenticated } from '../../src/permissions/is-authenticated.js'
import type { Permission } from '../../src/core/permission.js'
import { createApi } from '../../src/core/api.js'
import { jsonResponse } from '../../src/core/api-response.js'
import { ConfigurationError } from '../../src/core/errors.js'
import { DEFAULT_SETTINGS, resolveSettings, type Settings } from '../../src/core/settings.js'
import type { ViewOptions } from '../../src/core/view.js'

const handlers: ViewOptions['handlers'] = { GET: async () => jsonResponse(200, {}) }
const scheme: AuthenticationScheme = { name: 'S', authenticate: async () => null }

function configError(fn: () => unknown): ConfigurationError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ConfigurationError) return error
    throw error
  }
  throw new Error('expected a ConfigurationError')
}

describe('settings validation at createApi', () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['unknown key', { authentcation: [] }, 'ERR_UNKNOWN_SETTING', /"authentcation"/],
    ['DRF-style key', { DEFAULT_AUTHENTICATION_CLASSES: [] }, 'ERR_UNKNOWN_SETTING', /DEFAULT_AUTHENTICATION_CLASSES/],
    ['authentication not a list', { authentication: scheme }, 'ERR_INVALID_SETTING', /"authentication"/],
    ['authentication item without authenticate()', { authentication: [{}] }, 'ERR_INVALID_SETTING', /"authentication"/],
    ['a scheme class instead of an instance', { authentication: [class {}] }, 'ERR_INVALID_SETTING', /"authentication"/],
    ['permissions item without hasPermission()', { permissions: [{ check: () => true }] }, 'ERR_INVALID_SETTING', /"permissions"/],
    ['throttles item without check()', { throttles: [{}] }, 'ERR_INVALID_SETTING', /"throttles"/],
    ['pageSize 0', { pageSize: 0 }, 'ERR_INVALID_SETTING', /"pageSize"/],
    ['pageSize fractional', { pageSize: 2.5 }, 'ERR_INVALID_SETTING', /"pageSize"/],
    ['pageSize string', { pageSize: '10' }, 'ERR_INVALID_SETTING', /"pageSize"/],
    ['pagination without paginate()', { pagination: {} }, 'ERR_INVALID_SETTING', /"pagination"/],
    ['unauthenticatedUser not a function', { unauthenticatedUser: { id: null } }, 'ERR_INVALID_SETTING', /"unauthenticatedUser"/],
    ['unauthenticatedToken not a function', { unauthenticatedToken: null }, 'ERR_INVALID_SETTING', /"unauthenticatedToken"/],
    ['numProxies negative', { numProxies: -1 }, 'ERR_INVALID_SETTING', /"numProxies"/],
    ['logError not a function', { logError: 'console' }, 'ERR_INVALID_SETTING', /"logError"/],
  ])('%s → %s naming the key', (_name, settings, code, message) => {
    const error = configError(() => createApi(settings as Partial<Settings>))
    expect(error.code).toBe(code)
    expect(error.message).toMatch(message)
  })

  it('undefined values mean "use the default"', () => {
    const api = createApi({ pageSize: undefined as unknown as number })
    expect(api.settings.pageSize).toBeNull()
  })

  it('defaults: no schemes, AllowAny, no throttles, no pagination', () => {
    const { settings } = createApi()
    expect(settings.authentication).toEqual([])
    // No permission: every request passes, as DRF's default AllowAny.
    expect(settings.permissions).toEqual([])
    expect(settings.throttles).toEqual([])
    expect(settings.pagination).toBeNull()
    expect(settings.pageSize).toBeNull()
    expect(settings.numProxies).toBe(0)
    expect(settings.unauthenticatedUser()).toMatchObject({ username: null, isAuthenticated: false })
    expect(settings.unauthenticatedToken()).toBeNull()
  })
})

describe('settings validation at api.view', () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['unknown key', { permision: [] }, 'ERR_UNKNOWN_SETTING', /view "v".*"permision"/],
    ['bad permissions', { permissions: [null] }, 'ERR_INVALID_SETTING', /view "v".*"permissions"/],
    ['bad pageSize', { pageSize: -3 }, 'ERR_INVALID_SETTING', /view "v".*"pageSize"/],
  ])('%s → %s naming the view and key', (_name, extra, code, message) => {
    const error = configError(() => createApi().view({ name: 'v', handlers, ...extra } as ViewOptions))
    expect(error.code).toBe(code)
    expect(error.message).toMatch(message)
  })

  it('a view with no handlers is refused', () => {
    expect(configError(() => createApi().view({ name: 'empty', handlers: {} })).code).toBe('ERR_NO_HANDLERS')
    expect(configError(() => createApi().view({ name: 'empty' } as unknown as ViewOptions)).code).toBe('ERR_NO_HANDLERS')
  })

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['lower-case method', { handlers: { get: async () => jsonResponse(200, {}) } }, 'ERR_INVALID_HANDLER', /view "v": unknown handler "get"/],
    ['HEAD handler', { handlers: { HEAD: async () => jsonResponse(200, {}) } }, 'ERR_INVALID_HANDLER', /unknown handler "HEAD"/],
    ['handler not a function', { handlers: { GET: 'nope' } }, 'ERR_INVALID_HANDLER', /handler "GET" must be a function/],
    ['unknown format', { handlers, formats: ['xml'] }, 'ERR_INVALID_SETTING', /"formats"/],
    ['empty formats', { handlers, formats: [] }, 'ERR_INVALID_SETTING', /"formats"/],
    ['formats not a list', { handlers, formats: 'json' }, 'ERR_INVALID_SETTING', /"formats"/],
  ])('%s → %s', (_name, options, code, message) => {
    const error = configError(() => createApi().view({ name: 'v', ...options } as unknown as ViewOptions))
    expect(error.code).toBe(code)
    expect(error.message).toMatch(message)
  })
})

describe('resolution', () => {
  it('does not mutate the caller\'s objects, and later caller mutation does not leak in', async () => {
    const authentication: AuthenticationScheme[] = [scheme]
    const permissions = [new IsAuthenticated()]
    const input = { authentication, permissions, pageSize: 5 }
    const snapshot = { ...input, authentication: [...authentication], permissions: [...permissions] }
    const api = createApi(input)
    expect(input).toEqual(snapshot)
    expect(Object.isFrozen(input)).toBe(false)
    expect(Object.isFrozen(authentication)).toBe(false)
    authentication.push({ name: 'late', authenticate: async () => null })
    permissions.length = 0
    expect(api.settings.authentication).toHaveLength(1)
    expect(api.settings.permissions).toHaveLength(1)
    expect(Object.isFrozen(api.settings)).toBe(true)
    expect(Object.isFrozen(api.settings.authentication)).toBe(true)
    expect(DEFAULT_SETTINGS.authentication).toEqual([])
  })

  it('per-view arrays are snapshots too', async () => {
    const viewPermissions: Permission[] = [new AllowAny()]
    const v = createApi({ permissions: [new IsAuthenticated()] }).view({ handlers, permissions: viewPermissions })
    viewPermissions.length = 0
    viewPermissions.push(new IsAuthenticated())
    expect((await v.handle(buildRequest())).status).toBe(200)
    expect(Object.isFrozen(v.settings.permissions)).toBe(true)
  })

  it('per-view keys replace the global ones (no merging), other keys are inherited', () => {
    const other: AuthenticationScheme = { name: 'Other', authenticate: async () => null }
    const api = createApi({ authentication: [scheme], permissions: [new IsAuthenticated()], pageSize: 10 })
    const v = api.view({ handlers, authentication: [other] })
    expect(v.settings.authentication).toEqual([other])
    expect(v.settings.permissions[0]).toBeInstanceOf(IsAuthenticated)
    expect(v.settings.pageSize).toBe(10)
    const none = api.view({ handlers, authentication: [], pageSize: null })
    expect(none.settings.authentication).toEqual([])
    expect(none.settings.pageSize).toBeNull()
    // The global settings are untouched by views.
    expect(api.settings.authentication).toEqual([scheme])
  })

  it('resolveSettings alone validates too', () => {
    expect(() => resolveSettings({ pageSize: 'x' as unknown as number })).toThrow(ConfigurationError)
  })
})
