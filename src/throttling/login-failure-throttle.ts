import { createHash } from 'node:crypto'
import type { ApiRequest } from '../core/api-request.js'
import { ConfigurationError, Throttled } from '../core/errors.js'
import { clientIdent } from './client-ident.js'
import { parseRate, type Rate } from './rate.js'
import { throttleWait, type Clock } from './simple-rate-throttle.js'
import type { ReleasableThrottleStore, ThrottleHit } from './throttle-store.js'

/** Options for `LoginFailureThrottle`. */
export interface LoginFailureThrottleOptions {
  /**
   * Where failure counts live: `MemoryThrottleStore` in one process, `RedisThrottleStore`
   * when several instances must share them (a guess on one counts on all).
   */
  readonly store: ReleasableThrottleStore
  /**
   * Failed password checks allowed per username, and separately per client address, in
   * any sliding window: DRF's rate syntax, `'5/min'`, `'20/hour'`.
   */
  readonly rate: string | Rate
  /**
   * Trusted proxies in front of the app, to find the client address in `X-Forwarded-For`
   * (see `clientIdent`). Pass the API's `numProxies`.
   * @default 0 (the socket's peer address)
   */
  readonly numProxies?: number
  /** IPv6 clients count as their whole network of this prefix length. @default 64 */
  readonly ipv6Prefix?: number
  /** Prepended to both keys in the store. @default 'login_failures_' */
  readonly keyPrefix?: string
  /** @default Date.now */
  readonly now?: Clock
}

/** One recorded (reserved) failure, kept so it can be given back. */
interface Reservation {
  readonly key: string
  readonly at: number
}

/**
 * Failed-login throttling (django-axes' idea, on gatehouse's throttle stores): counts
 * failed password checks per username **and** per client address, and once either has
 * reached the rate, answers DRF's `Throttled` (429, `Request was throttled. Expected
 * available in N seconds.` and `Retry-After`) without checking the password, even a
 * right one, until the oldest failure leaves the window.
 *
 * Hand one instance to every place a password is checked (`BasicAuthentication`,
 * `obtainAuthTokenView`, `loginView`) so they share one budget.
 *
 * How it counts, and why:
 * - Each check first *reserves* a failure on both keys (one atomic store step each), and
 *   gives both back when the password was right. Counting before checking means concurrent
 *   guesses cannot all pass a "still under the limit?" test at once: at most `limit`
 *   checks per username (or address) run or fail per window. The price: more than `limit`
 *   simultaneous checks for one user, right passwords included, get a 429 for the extra ones.
 * - A success does not clear earlier failures (django-axes' `AXES_RESET_ON_SUCCESS` is off
 *   by default too): clearing the address count would let one valid account reset a
 *   credential-stuffing client's budget, and clearing the username's would hand a guesser
 *   a fresh budget each time the owner logs in. Failures simply age out of the window.
 * - Usernames are keyed by their SHA-256 (bounded key size, no user text in Redis keys);
 *   unknown usernames count like known ones, so the 429 reveals nothing about accounts.
 *
 * @example
 * const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '5/min' })
 * new BasicAuthentication({ users, loginFailures })
 * api.view(obtainAuthTokenView({ users, tokens, loginFailures }))
 * api.view(loginView({ users, sessions, loginFailures }))
 */
export class LoginFailureThrottle {
  readonly rate: Rate
  private readonly store: ReleasableThrottleStore
  private readonly numProxies: number
  private readonly ipv6Prefix: number
  private readonly keyPrefix: string
  private readonly now: Clock

  /** @throws ConfigurationError for a malformed rate or option. */
  constructor(options: LoginFailureThrottleOptions) {
    this.store = options.store
    this.rate = typeof options.rate === 'string' ? parseRate(options.rate) : options.rate
    this.numProxies = options.numProxies ?? 0
    this.ipv6Prefix = options.ipv6Prefix ?? 64
    this.keyPrefix = options.keyPrefix ?? 'login_failures_'
    this.now = options.now ?? Date.now
    if (!Number.isInteger(this.numProxies) || this.numProxies < 0) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'LoginFailureThrottle option "numProxies" must be a non-negative integer')
    }
    if (!Number.isInteger(this.ipv6Prefix) || this.ipv6Prefix < 0 || this.ipv6Prefix > 128) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'LoginFailureThrottle option "ipv6Prefix" must be an integer from 0 to 128')
    }
  }

  /** The store keys a check by `username` from this request's client counts against. */
  keys(req: ApiRequest, username: string): { readonly user: string; readonly client: string } {
    const digest = createHash('sha256').update(username, 'utf8').digest('hex').slice(0, 32)
    return {
      user: `${this.keyPrefix}user_${digest}`,
      client: `${this.keyPrefix}ip_${clientIdent(req, this.numProxies, this.ipv6Prefix)}`,
    }
  }

  /**
   * Runs one password check under the throttle. `check` answers the user (success) or
   * `null` (a failed check, counted against the username and the client address).
   * An error thrown by `check` (a store outage, say) counts as nothing and is rethrown.
   *
   * @throws Throttled (429) when the username or the address has used up its failures;
   *   `check` is not called then.
   */
  async guard<T>(req: ApiRequest, username: string, check: () => Promise<T | null>): Promise<T | null> {
    const { user, client } = this.keys(req, username)
    const now = this.now()
    const { windowMs, limit } = this.rate
    const reserved: Reservation[] = []
    let refused: ThrottleHit | null = null
    try {
      for (const key of [user, client]) {
        const hit = await this.store.hit(key, now, windowMs, limit)
        if (hit.allowed) {
          reserved.push({ key, at: now })
        } else if (refused === null || waitOf(hit, now, this.rate) > waitOf(refused, now, this.rate)) {
          refused = hit
        }
      }
    } catch (error) {
      await this.releaseAll(reserved)
      throw error
    }
    if (refused !== null) {
      await this.releaseAll(reserved)
      throw new Throttled(throttleWait(refused, now, this.rate))
    }
    let result: T | null
    try {
      result = await check()
    } catch (error) {
      await this.releaseAll(reserved)
      throw error
    }
    // A right password gives the reservations back; a wrong one keeps them as failures.
    if (result !== null) await this.releaseAll(reserved)
    return result
  }

  private async releaseAll(reserved: readonly Reservation[]): Promise<void> {
    await Promise.all(reserved.map(({ key, at }) => this.store.release(key, at)))
  }
}

/** A refused hit's wait, for picking the longer of two (`null`, no slot will free, is longest). */
function waitOf(hit: ThrottleHit, now: number, rate: Rate): number {
  return throttleWait(hit, now, rate) ?? Number.POSITIVE_INFINITY
}
