import type { ApiRequest } from '../core/api-request.js'
import type { StoredUser } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import type { Authenticated, AuthenticationScheme } from './authentication-scheme.js'

/** Options for `RemoteUserAuthentication`. */
export interface RemoteUserAuthenticationOptions {
  readonly users: Pick<UserStore, 'findByUsername' | 'create'>
  /**
   * The request header a trusted front server sets to the authenticated user name
   * (Node has no `REMOTE_USER` environment variable). The front server must strip
   * any client-sent copy of this header, or clients can claim any name.
   */
  readonly header: string
  /** Create a user (with an unusable password) for an unknown name. @default true (Django's RemoteUserBackend) */
  readonly createUnknownUser?: boolean
  /**
   * Accept the header only from these peer addresses (the front server's). `null` accepts any.
   * @default null
   */
  readonly trustedAddresses?: readonly string[] | null
}

/** `::ffff:10.0.0.5` (a dual-stack socket's IPv4 peer) and `10.0.0.5` are one address; IPv6 case-folded. */
function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  return mapped?.[1] ?? address.toLowerCase()
}

/**
 * DRF's `RemoteUserAuthentication`: a front server authenticated the user and says
 * who in a header. Never raises: a missing, untrusted or inactive user is "not attempted".
 */
export class RemoteUserAuthentication implements AuthenticationScheme<null> {
  readonly name: string = 'RemoteUserAuthentication'
  private readonly options: Required<RemoteUserAuthenticationOptions>

  constructor(options: RemoteUserAuthenticationOptions) {
    this.options = Object.freeze({
      users: options.users,
      header: options.header,
      createUnknownUser: options.createUnknownUser ?? true,
      trustedAddresses: options.trustedAddresses ?? null,
    })
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<null> | null> {
    const { users, header, createUnknownUser, trustedAddresses } = this.options
    if (trustedAddresses !== null) {
      const peer = normalizeAddress(req.remoteAddress ?? '')
      if (peer === '' || !trustedAddresses.some((a) => normalizeAddress(a) === peer)) return null
    }
    const username = req.headers.get(header)
    // Longer names cannot be stored (Django's 150-character limit): treat as not attempted.
    if (username === null || username === '' || username.length > 150) return null
    let user: StoredUser | null = await users.findByUsername(username)
    if (user === null && createUnknownUser) {
      try {
        user = await users.create({ username, password: null })
      } catch (error) {
        // Two first requests for one new name race on the unique constraint: the loser re-reads.
        user = await users.findByUsername(username)
        if (user === null) throw error
      }
    }
    if (user === null || !user.isActive) return null
    return { user, auth: null }
  }
}
