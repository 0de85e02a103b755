import type { ApiRequest } from '../core/api-request.js'
import { normalizeUsername } from '../core/username.js'
import { ConfigurationError } from '../core/errors.js'
import { ipFamily } from '../core/net/ip-address.js'
import { IpRangeList } from '../core/net/ip-range-list.js'
import type { StoredUser } from '../core/user.js'
import type { UserStore } from '../stores/user-store.js'
import type { OpenApiSecurityScheme } from '../core/openapi-types.js'
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
   * The peer addresses of the front server(s) that set the header: single addresses or CIDR
   * ranges, IPv4 or IPv6 (`'127.0.0.1'`, `'10.0.0.0/8'`, `'::1'`, `'fd00::/8'`). From any other
   * address the scheme does not attempt authentication. Required unless `trustAnyClient` is true.
   */
  readonly trustedAddresses?: readonly string[]
  /**
   * Believe the header from every client. Only safe when nothing but the front server can
   * reach the app (a private socket, a network policy): otherwise anyone can claim any name.
   * @default false
   */
  readonly trustAnyClient?: boolean
}

/** `::ffff:10.0.0.5` (a dual-stack socket's IPv4 peer) is the IPv4 address `10.0.0.5`. */
function normalizeAddress(address: string): string {
  return address.toLowerCase().startsWith('::ffff:') && ipFamily(address.slice(7)) === 4 ? address.slice(7) : address
}

/** The trusted ranges as an `IpRangeList`; a `ConfigurationError` naming the bad entry. */
function trustedList(entries: readonly string[]): IpRangeList {
  const list = new IpRangeList()
  for (const entry of entries) {
    const slash = entry.indexOf('/')
    const address = normalizeAddress(slash === -1 ? entry : entry.slice(0, slash))
    const family = ipFamily(address)
    const prefix = slash === -1 ? (family === 4 ? 32 : 128) : Number(entry.slice(slash + 1))
    const maxPrefix = family === 4 ? 32 : 128
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix || (slash !== -1 && !/^[0-9]{1,3}$/.test(entry.slice(slash + 1)))) {
      throw new ConfigurationError('ERR_GATEHOUSE_REMOTE_USER_TRUST', `RemoteUserAuthentication: trustedAddresses entry "${entry}" is not an IP address or CIDR range`)
    }
    list.addSubnet(address, prefix)
  }
  return list
}

/**
 * DRF's `RemoteUserAuthentication`: a front server authenticated the user and says
 * who in a header. Never raises: a missing, untrusted or inactive user is "not attempted".
 */
export class RemoteUserAuthentication implements AuthenticationScheme<null> {
  readonly name: string = 'RemoteUserAuthentication'
  private readonly users: RemoteUserAuthenticationOptions['users']
  private readonly header: string
  private readonly createUnknownUser: boolean
  /** `null` only with `trustAnyClient: true`. */
  private readonly trusted: IpRangeList | null

  /** @throws ConfigurationError without `trustedAddresses` or `trustAnyClient: true`, or with a malformed address. */
  constructor(options: RemoteUserAuthenticationOptions) {
    this.users = options.users
    this.header = options.header
    this.createUnknownUser = options.createUnknownUser ?? true
    if (options.trustAnyClient === true) {
      this.trusted = null
    } else if (options.trustedAddresses === undefined || options.trustedAddresses.length === 0) {
      throw new ConfigurationError(
        'ERR_GATEHOUSE_REMOTE_USER_TRUST',
        'RemoteUserAuthentication needs trustedAddresses (the front server\'s addresses or CIDR ranges), or trustAnyClient: true to believe the header from every client',
      )
    } else {
      this.trusted = trustedList(options.trustedAddresses)
    }
  }

  private trusts(address: string | null): boolean {
    if (this.trusted === null) return true
    if (address === null) return false
    return this.trusted.check(normalizeAddress(address))
  }

  async authenticate(req: ApiRequest): Promise<Authenticated<null> | null> {
    const { users, header, createUnknownUser } = this
    if (!this.trusts(req.remoteAddress)) return null
    const username = req.headers.get(header)
    // Longer names cannot be stored (Django's 150-character limit): treat as not attempted.
    if (username === null || username === '' || username.length > 150) return null
    let user: StoredUser | null = await users.findByUsername(username)
    // A name that is not NFKC-normal is never created: the store would make it its normal
    // form (`ａｄｍｉｎ` → `admin`), and a front server's `ａｄｍｉｎ` is not gatehouse's `admin`.
    if (user === null && createUnknownUser && username === normalizeUsername(username)) {
      try {
        user = await users.create({ username, password: null })
      } catch (error) {
        // Two first requests for one new name race on the unique constraint: the loser re-reads.
        user = await users.findByUsername(username)
        if (user === null) throw error
      }
    }
    if (user === null || !user.isActive) return null
    return { user, auth: null, expiresAt: null }
  }

  /** OpenAPI: `remoteUserAuth`, the header as an API key (only a trusted front server may set it). */
  openApiSecurity(): readonly OpenApiSecurityScheme[] {
    return [
      {
        name: 'remoteUserAuth',
        scheme: { type: 'apiKey', in: 'header', name: this.header, description: 'The user name, set by a trusted front server (never by clients).' },
      },
    ]
  }
}
