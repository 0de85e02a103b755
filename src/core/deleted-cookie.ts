/** Attributes of a cookie to delete: they must match the ones it was set with. */
export interface DeletedCookieOptions {
  /** @default '/' */
  readonly path?: string
  /** Unset: a host-only cookie. */
  readonly domain?: string
  /** @default 'Lax' */
  readonly sameSite?: 'Lax' | 'Strict' | 'None'
}

/**
 * The `Set-Cookie` value Django's `HttpResponse.delete_cookie` writes, byte for byte:
 * `name=""; [Domain=…; ]expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; SameSite=Lax`
 * (Python's `SimpleCookie` sorts the attributes; `Secure` only for `__Secure-` and `__Host-`
 * names, or with `SameSite=None`, which browsers require).
 */
export function deletedCookie(name: string, options: DeletedCookieOptions = {}): string {
  const sameSite = options.sameSite ?? 'Lax'
  const secure = name.startsWith('__Secure-') || name.startsWith('__Host-') || sameSite === 'None'
  return [
    `${name}=""`,
    ...(options.domain === undefined ? [] : [`Domain=${options.domain}`]),
    'expires=Thu, 01 Jan 1970 00:00:00 GMT',
    'Max-Age=0',
    `Path=${options.path ?? '/'}`,
    `SameSite=${sameSite}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ')
}
