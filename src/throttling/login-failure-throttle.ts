import type { ApiRequest } from '../core/api-request.js'
import { ConfigurationError, Throttled } from '../core/errors.js'
import { randomBytes } from '../crypto/random.js'
import { sha256Hex } from '../crypto/sha256.js'
import { bytesToBase64Url } from '../core/encoding/base64.js'
import type { UserStore } from '../stores/user-store.js'
import { clientIdent, UNKNOWN_CLIENT } from './client-ident.js'
import { parseRate, type Rate } from './rate.js'
import { throttleWait, type Clock } from './simple-rate-throttle.js'
import type { ReservationHit, ReservingThrottleStore } from './throttle-store.js'

/** Options for `LoginFailureThrottle`. */
export interface LoginFailureThrottleOptions {
  /**
   * Where failure counts live: `MemoryThrottleStore` in one process, `RedisThrottleStore`
   * when several instances must share them (a guess on one counts on all).
   */
  readonly store: ReservingThrottleStore
  /**
   * Failed password checks allowed per (username, client address) pair in any sliding
   * window: DRF's rate syntax, `'5/min'`, `'20/hour'`. This is the tight limit a guesser
   * meets; the account's owner, on another address, does not share it.
   */
  readonly rate: string | Rate
  /**
   * Failed checks allowed per username from all addresses together: the looser limit that
   * stops a guesser who spreads over many addresses. `null` turns it off.
   * @default ten times `rate`'s count, over `rate`'s window
   */
  readonly usernameRate?: string | Rate | null
  /**
   * Failed checks allowed per client address over all usernames (password spraying).
   * `null` turns it off.
   * @default ten times `rate`'s count, over `rate`'s window
   */
  readonly clientRate?: string | Rate | null
  /**
   * How long (ms) a check in progress holds its place in the budgets. A reservation that is
   * never settled (the process died during the check, or the store ran the reserving step
   * after the request had given up on it) lapses after this and never counts as a failure.
   * Keep it at or below the store's command timeout (`createRedisClient`'s `commandTimeoutMs`,
   * default 2000), so a step a stalled store runs late has lapsed before the store answers again.
   * @default 2000
   */
  readonly reservationMs?: number
  /**
   * How long (ms) a check waits for a place when a budget is full only of checks still in
   * progress (several right passwords at once from one client, say): it answers 429 only if
   * none has finished by then. Failures that fill a budget answer 429 at once.
   * @default 1000
   */
  readonly waitForSlotMs?: number
  /**
   * Trusted proxies in front of the app, to find the client address in `X-Forwarded-For`
   * (see `clientIdent`), as the rate throttles do.
   * @default the `numProxies` of the API (the view's settings) the request is answered by; 0 outside a view
   */
  readonly numProxies?: number
  /**
   * Told once, the first time a request's client address is unknown (an adapter that gives
   * no peer address: Hono on Workers without `getConnInfo`). Such checks are counted per
   * username only (see the class), never against one address all clients would share.
   * @default console.warn
   */
  readonly warn?: (message: string) => void
  /** IPv6 clients count as their whole network of this prefix length. @default 64 */
  readonly ipv6Prefix?: number
  /** Prepended to every key in the store. @default 'login_failures_' */
  readonly keyPrefix?: string
  /** @default Date.now */
  readonly now?: Clock
}

/** The store keys one check counts against. */
export interface LoginFailureKeys {
  /** The (username, client address) pair, at `rate`. */
  readonly pair: string
  /** The username from any address, at `usernameRate`. */
  readonly user: string
  /** The client address for any username, at `clientRate`. */
  readonly client: string
}

interface Budget {
  readonly key: string
  readonly rate: Rate
}

/** One reservation attempt: its id, the budgets reserved, and the refusal when not all were. */
interface Attempt {
  readonly id: string
  readonly reserved: readonly Budget[]
  readonly refused: Refusal | null
}

/** Why an attempt was refused: the wait to announce, and when a retry may succeed (`null`: not within a lease). */
interface Refusal {
  readonly wait: number | null
  readonly retryInMs: number | null
}

const SLOT_POLL_MS = 50

/** How many times `rate` the username and address budgets allow by default. */
const LOOSER_BY = 10

/**
 * Failed-login throttling (django-axes' idea, on gatehouse's throttle stores): counts failed
 * password checks per (username, client address) pair at `rate`, and, looser, per username
 * and per client address. Once a budget is used up, answers DRF's `Throttled` (429, `Request
 * was throttled. Expected available in N seconds.` and `Retry-After`) without checking the
 * password, even a right one, until the oldest failure leaves the window.
 *
 * Hand one instance to every place a password is checked (`BasicAuthentication`,
 * `obtainAuthTokenView`, `loginView`) so they share one budget.
 *
 * How it counts, and why:
 * - **Per pair first, as django-axes and OWASP advise.** Counting per username alone lets
 *   anyone lock any account out with `limit` wrong passwords a window. Per pair, a guesser
 *   locks only themselves out; the owner, from their own address, logs in. The per-username
 *   budget (default 10× `rate`) still caps guesses spread over many addresses: the trade-off
 *   is that an attacker holding ten or more addresses can still keep one account locked,
 *   and a guesser with many addresses gets up to `usernameRate` guesses per window.
 * - **Reserve, check, then confirm or cancel.** Each check first reserves a place in every
 *   budget (one atomic store step each), so concurrent guesses cannot all pass a "still under
 *   the limit?" test at once. A wrong password *confirms* the reservations as failures, a right
 *   one *cancels* them. A reservation that is never settled lapses after `reservationMs`: only
 *   a failed password check records a failure, so a store outage, a stalled store that runs a
 *   step late, or a process killed mid-check counts nothing. The price: more than `limit`
 *   simultaneous checks for one pair, right passwords included, queue for up to
 *   `waitForSlotMs`, then get a 429.
 * - A failure that cannot be recorded (the store fails after the check) is not answered: the
 *   request gets the store's 503, so an outage never hands out an uncounted verdict.
 * - A success does not clear earlier failures (django-axes' `AXES_RESET_ON_SUCCESS` is off by
 *   default too): failures age out of the window.
 * - Usernames are keyed by their SHA-256 (bounded key size, no user text in Redis keys);
 *   unknown usernames count like known ones, so the 429 reveals nothing about accounts. The
 *   name is the user store's `canonicalUsername` of the one sent, when the store has it
 *   (django-axes' `AXES_USERNAME_CALLABLE`): case variants of one account share its budgets.
 * - **The client address comes from the API's `numProxies`** (or the option), as the rate
 *   throttles find it: behind a proxy, each client counts apart, not the proxy for all.
 * - **An unknown client address** (no peer address, as on Hono on Workers without
 *   `getConnInfo`) is one identity every client would share, so it carries no pair or
 *   address budget: such a check counts per username only (at `usernameRate`, or its
 *   default when that is off), and `warn` is told once.
 *
 * @example
 * const loginFailures = new LoginFailureThrottle({ store: new MemoryThrottleStore(), rate: '5/min' })
 * new BasicAuthentication({ users, loginFailures })
 * api.view(obtainAuthTokenView({ users, tokens, loginFailures }))
 * api.view(loginView({ users, sessions, loginFailures }))
 */
export class LoginFailureThrottle {
  /** Failures per (username, client address) pair. */
  readonly rate: Rate
  /** Failures per username from every address, or `null` (not counted). */
  readonly usernameRate: Rate | null
  /** Failures per client address over every username, or `null` (not counted). */
  readonly clientRate: Rate | null
  private readonly store: ReservingThrottleStore
  private readonly reservationMs: number
  private readonly waitForSlotMs: number
  private readonly numProxies: number | undefined
  private readonly ipv6Prefix: number
  private readonly warn: (message: string) => void
  private warnedUnknownClient = false
  private readonly unknownClientRate: Rate
  private readonly keyPrefix: string
  private readonly now: Clock

  /** @throws ConfigurationError for a malformed rate or option. */
  constructor(options: LoginFailureThrottleOptions) {
    this.store = options.store
    this.rate = typeof options.rate === 'string' ? parseRate(options.rate) : options.rate
    const looser: Rate = { limit: this.rate.limit * LOOSER_BY, windowMs: this.rate.windowMs }
    this.usernameRate = optionalRate(options.usernameRate, looser)
    this.clientRate = optionalRate(options.clientRate, looser)
    this.reservationMs = options.reservationMs ?? 2_000
    this.waitForSlotMs = options.waitForSlotMs ?? 1_000
    this.numProxies = options.numProxies
    this.warn = options.warn ?? ((message) => console.warn(message))
    this.unknownClientRate = this.usernameRate ?? looser
    this.ipv6Prefix = options.ipv6Prefix ?? 64
    this.keyPrefix = options.keyPrefix ?? 'login_failures_'
    this.now = options.now ?? Date.now
    if (!Number.isSafeInteger(this.reservationMs) || this.reservationMs < 1) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'LoginFailureThrottle option "reservationMs" must be a positive integer')
    }
    if (!Number.isSafeInteger(this.waitForSlotMs) || this.waitForSlotMs < 0) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'LoginFailureThrottle option "waitForSlotMs" must be a non-negative integer')
    }
    if (this.numProxies !== undefined && (!Number.isInteger(this.numProxies) || this.numProxies < 0)) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'LoginFailureThrottle option "numProxies" must be a non-negative integer')
    }
    if (!Number.isInteger(this.ipv6Prefix) || this.ipv6Prefix < 0 || this.ipv6Prefix > 128) {
      throw new ConfigurationError('ERR_INVALID_SETTING', 'LoginFailureThrottle option "ipv6Prefix" must be an integer from 0 to 128')
    }
  }

  /**
   * The store keys a check by `username` from this request's client counts against. The
   * address is found with `numProxies` (the option, else the API's setting); an unknown one is
   * `unknown` (see `guard`, which then counts `user` only).
   */
  keys(req: ApiRequest, username: string): LoginFailureKeys {
    const client = this.client(req)
    const user = digest(username)
    return {
      // The digest of the username keeps user text out of the key; the address is appended as is.
      pair: `${this.keyPrefix}pair_${user}_${client}`,
      user: `${this.keyPrefix}user_${user}`,
      client: `${this.keyPrefix}ip_${client}`,
    }
  }

  /**
   * Runs one password check under the throttle. `check` answers the user (success) or
   * `null` (a failed check, counted against the pair, the username and the client address).
   * An error thrown by `check` (a store outage, say) counts as nothing and is rethrown.
   *
   * @throws Throttled (429) when a budget is used up; `check` is not called then.
   * @throws the store's error (503) when it cannot reserve, or cannot record a failure.
   */
  async guard<T>(req: ApiRequest, username: string, check: () => Promise<T | null>): Promise<T | null> {
    const budgets = this.budgets(req, username)
    // Real time, not the injectable clock: this bounds how long the request waits.
    const waitUntil = Date.now() + this.waitForSlotMs
    let reservation = await this.reserve(budgets)
    while (reservation.refused !== null) {
      const retryInMs = reservation.refused.retryInMs
      if (retryInMs === null || Date.now() + Math.min(retryInMs, SLOT_POLL_MS) > waitUntil) throw new Throttled(reservation.refused.wait)
      await new Promise((resolve) => setTimeout(resolve, Math.min(retryInMs, SLOT_POLL_MS)))
      reservation = await this.reserve(budgets)
    }
    const { reserved, id } = reservation
    let result: T | null
    try {
      result = await check()
    } catch (error) {
      await this.cancel(reserved, id)
      throw error
    }
    if (result !== null) {
      await this.cancel(reserved, id)
      return result
    }
    // Only now, after a failed check, is anything recorded as a failure.
    const at = this.now()
    await Promise.all(reserved.map(({ key, rate }) => this.store.confirm(key, id, at, rate.windowMs)))
    return null
  }

  /**
   * One attempt to reserve a place in every budget: all of them, or none (what was reserved is
   * given back) with the wait to announce, and when only checks in progress filled the
   * budgets, how soon a place may free.
   */
  private async reserve(budgets: readonly Budget[]): Promise<Attempt> {
    const id = bytesToBase64Url(randomBytes(12))
    const now = this.now()
    const leaseEnd = now + this.reservationMs
    const outcomes = await Promise.allSettled(budgets.map(({ key, rate }) => this.store.reserve(key, id, now, rate.windowMs, rate.limit, leaseEnd)))
    const reserved = budgets.filter((_, i) => {
      const outcome = outcomes[i]
      return outcome?.status === 'fulfilled' && outcome.value.allowed
    })
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
    if (failed !== undefined) {
      await this.cancel(reserved, id)
      throw failed.reason
    }
    let refused: Refusal | null = null
    outcomes.forEach((outcome, i) => {
      const budget = budgets[i]
      if (outcome.status !== 'fulfilled' || outcome.value.allowed || budget === undefined) return
      const hit = outcome.value
      const wait = refusalWait(hit, now, budget.rate)
      // Only checks in progress fill this budget: a place frees when one of them ends.
      const retryInMs = hit.failures < budget.rate.limit && hit.nextLeaseEnd !== null ? Math.max(1, hit.nextLeaseEnd - now) : null
      refused = {
        wait: refused === null || longer(wait, refused.wait) ? wait : refused.wait,
        retryInMs: refused === null ? retryInMs : refused.retryInMs === null || retryInMs === null ? null : Math.max(refused.retryInMs, retryInMs),
      }
    })
    if (refused !== null) await this.cancel(reserved, id)
    return { id, reserved, refused }
  }

  private client(req: ApiRequest): string {
    return clientIdent(req, this.numProxies ?? req.notes?.numProxies ?? 0, this.ipv6Prefix)
  }

  private budgets(req: ApiRequest, username: string): Budget[] {
    const keys = this.keys(req, username)
    if (this.client(req) === UNKNOWN_CLIENT) {
      // Every client shares this one identity: a pair or address budget on it would let five
      // wrong passwords from anyone lock the owner out, and spraying lock every login out.
      if (!this.warnedUnknownClient) {
        this.warnedUnknownClient = true
        this.warn(
          'gatehouse: LoginFailureThrottle: the client address is unknown (the adapter gives none: on Hono, pass getConnInfo); failed logins are counted per username only until it is known',
        )
      }
      return [{ key: keys.user, rate: this.unknownClientRate }]
    }
    const budgets: Budget[] = [{ key: keys.pair, rate: this.rate }]
    if (this.usernameRate !== null) budgets.push({ key: keys.user, rate: this.usernameRate })
    if (this.clientRate !== null) budgets.push({ key: keys.client, rate: this.clientRate })
    return budgets
  }

  /** Gives reservations back. Best effort: one that cannot be cancelled lapses by itself. */
  private async cancel(reserved: readonly Budget[], id: string): Promise<void> {
    await Promise.all(reserved.map(({ key }) => this.store.cancel(key, id).catch(() => undefined)))
  }
}

/**
 * The name failed logins for `username` are counted under: the user store's
 * `canonicalUsername` of it (a store that finds users case-insensitively folds case there),
 * else `username` as sent. Every spelling the store resolves to one account then shares
 * that account's budget.
 */
export function failureUsername(users: Pick<UserStore, 'canonicalUsername'>, username: string): string {
  return users.canonicalUsername === undefined ? username : users.canonicalUsername(username)
}

function digest(username: string): string {
  return sha256Hex(username).slice(0, 32)
}

function optionalRate(value: string | Rate | null | undefined, fallback: Rate): Rate | null {
  if (value === undefined) return fallback
  if (value === null) return null
  return typeof value === 'string' ? parseRate(value) : value
}

/**
 * The wait (seconds) a refused reservation announces: DRF's `wait()` over the confirmed
 * failures when they fill the budget, else (checks in progress fill it) until the first
 * lease ends, at least one second.
 */
function refusalWait(hit: ReservationHit, now: number, rate: Rate): number | null {
  if (hit.failures >= rate.limit || hit.nextLeaseEnd === null) {
    return throttleWait({ allowed: false, count: hit.failures, oldest: hit.oldest }, now, rate)
  }
  return Math.max(1, Math.ceil((hit.nextLeaseEnd - now) / 1000))
}

/** Is wait `a` longer than `b`? (`null`, no slot will free, is longest.) */
function longer(a: number | null, b: number | null): boolean {
  if (b === null) return false
  return a === null || a > b
}
