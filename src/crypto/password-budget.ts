import { ServiceUnavailable } from '../core/errors.js'

/** The 503's detail when the password budget's queue is full. */
export const PASSWORD_CHECKS_BUSY_DETAIL = 'Too many password checks in progress, try again later.'

/** Options of a `PasswordBudget`. */
export interface PasswordBudgetOptions {
  /**
   * At most this many password checks (and hashes) run at once. Each takes the memory of its
   * hash's cost while it runs: 128 MiB at the default scrypt cost (OWASP's N=2^17, r=8), so 2
   * is 256 MiB; `128 * N * r` bytes each at another cost. @default 2
   */
  readonly concurrent?: number | undefined
  /**
   * Checks beyond `concurrent` wait here, first come first served; one more is refused with
   * `503` and `Retry-After`. A waiting check holds only its request, not the hash's memory.
   * @default 32
   */
  readonly queued?: number | undefined
  /** The 503's `Retry-After`, in seconds. @default 1 */
  readonly retryAfterSeconds?: number | undefined
}

/** The default number of password checks at once: 2 × 128 MiB at the default scrypt cost. */
export const DEFAULT_PASSWORD_CHECKS = 2
/** The default number of password checks waiting for a turn. */
export const DEFAULT_PASSWORD_QUEUE = 32

function count(value: number | undefined, fallback: number, name: string, min: number): number {
  const n = value ?? fallback
  if (!Number.isSafeInteger(n) || n < min) throw new RangeError(`PasswordBudget option "${name}" must be an integer of at least ${min}, got ${String(value)}`)
  return n
}

/**
 * A memory budget for password hashing: at most `concurrent` checks at once, `queued` more
 * waiting, and beyond that `ServiceUnavailable` (503 with `Retry-After`, `{"detail": …}`).
 * One scrypt check at OWASP's cost takes 128 MiB, and libuv's thread pool runs four at once,
 * so a burst of logins could otherwise take half a gigabyte; with the budget a process's
 * hashing stays under `concurrent × 128 MiB`. `KyselyUserStore` runs every check and hash
 * through one (by default the process-wide `defaultPasswordBudget()`, since memory is the
 * process's); share one between stores of one process.
 *
 * @example
 * // A 1 GiB container: 4 checks at once (512 MiB), 64 waiting.
 * const budget = new PasswordBudget({ concurrent: 4, queued: 64 })
 * const users = new KyselyUserStore({ db, passwordBudget: budget })
 */
export class PasswordBudget {
  readonly concurrent: number
  readonly queued: number
  readonly retryAfterSeconds: number
  private active = 0
  /** Each waiting check's start, first come first served. */
  private readonly waiters: (() => void)[] = []

  /** @throws RangeError for a count that is not an integer (`concurrent` at least 1, the others at least 0). */
  constructor(options: PasswordBudgetOptions = {}) {
    this.concurrent = count(options.concurrent, DEFAULT_PASSWORD_CHECKS, 'concurrent', 1)
    this.queued = count(options.queued, DEFAULT_PASSWORD_QUEUE, 'queued', 0)
    this.retryAfterSeconds = count(options.retryAfterSeconds, 1, 'retryAfterSeconds', 0)
  }

  /** Checks running now. */
  get running(): number {
    return this.active
  }

  /** Checks waiting for a turn now. */
  get waiting(): number {
    return this.waiters.length
  }

  /**
   * Runs `check` when a turn is free, after those waiting before it.
   * @throws ServiceUnavailable (503, `Retry-After`) when `queued` checks are waiting already; `check` is not called.
   */
  async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrent) this.active += 1
    else if (this.waiters.length < this.queued) await new Promise<void>((resolve) => this.waiters.push(resolve))
    else throw new ServiceUnavailable(PASSWORD_CHECKS_BUSY_DETAIL, 'password_checks_busy', { headers: [['Retry-After', String(this.retryAfterSeconds)]] })
    try {
      return await check()
    } finally {
      this.release()
    }
  }

  /**
   * Runs `check` only if a turn is free now (nobody waiting), else answers `undefined`: for
   * work that can wait for another time, such as rehashing a weaker hash after a login.
   */
  async runIfIdle<T>(check: () => Promise<T>): Promise<T | undefined> {
    if (this.active >= this.concurrent) return undefined
    this.active += 1
    try {
      return await check()
    } finally {
      this.release()
    }
  }

  private release(): void {
    // The turn passes straight to the next waiter, so `active` never exceeds `concurrent`.
    const next = this.waiters.shift()
    if (next === undefined) this.active -= 1
    else next()
  }
}

let shared: PasswordBudget | undefined

/**
 * The process-wide budget every `KyselyUserStore` without a `passwordBudget` of its own
 * shares (`new PasswordBudget()`: 2 checks at once, 32 waiting), made on first use.
 */
export function defaultPasswordBudget(): PasswordBudget {
  return (shared ??= new PasswordBudget())
}
