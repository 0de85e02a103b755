/**
 * The types of a `gatehouse --config` module, exported from gatehouse/kysely: its hook is given
 * the command's Kysely database. Defined here, below the command line, so the package entry
 * does not reach up into `src/cli/`.
 */
import type { Kysely } from 'kysely'
import type { StoredUser } from '../core/user.js'
import type { DialectName } from './dialect-name.js'
import type { AuthDatabase } from './schema.js'
import type { PasswordValidator } from '../passwords/password-validation.js'

/** What a `--config` module's `onUserCreated` is given besides the user: the command's database. */
export interface CliHookContext {
  /** The database the command writes (gatehouse's tables, migrated). */
  readonly db: Kysely<AuthDatabase>
  readonly dialect: DialectName
}

/**
 * The shape of a `gatehouse --config` module (`export async function onUserCreated(user, { db }) {…}`,
 * `export const passwordValidators = […]`).
 * @example
 * // gatehouse.config.mjs: DRF's "a token for every new user", for users the CLI creates
 * import { KyselyTokenStore } from 'drf-gatehouse/kysely'
 * export async function onUserCreated(user, { db }) {
 *   await new KyselyTokenStore({ db }).getOrCreate(user.id)
 * }
 * // and the admin's password rules (`[]`: none)
 * import { MinimumLengthValidator } from 'drf-gatehouse'
 * export const passwordValidators = [new MinimumLengthValidator({ minLength: 12 })]
 */
export interface CliConfig {
  readonly onUserCreated?: (user: StoredUser, context: CliHookContext) => void | Promise<void>
  /**
   * The validators `create-user` and `changepassword` run on a new password (`[]`: none).
   * @default defaultPasswordValidators()
   */
  readonly passwordValidators?: readonly PasswordValidator[]
}
