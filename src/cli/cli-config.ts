/**
 * `--config <file>` (or `GATEHOUSE_CONFIG`): a JavaScript module of the user's, loaded by the
 * commands that create users (`create-user`, `import-django`), whose `onUserCreated` export
 * is called for every user they create, as the app's own `KyselyUserStore` calls its hook,
 * and by the commands that set a password (`create-user`, `changepassword`), whose
 * `passwordValidators` export replaces Django's four default validators, as the admin's option does.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { CliConfig, CliHookContext } from '../kysely/cli-config-types.js'
import type { PasswordValidator } from '../passwords/password-validation.js'
import type { UserCreatedHook } from '../stores/user-created-hook.js'

/** Raised for a config file that cannot be loaded or exports something else. */
export class CliConfigError extends Error {}

/** A validator as `PasswordValidator` describes it: an object with `validate` and `helpText` methods. */
function isValidator(value: unknown): value is PasswordValidator {
  const candidate = value as { validate?: unknown; helpText?: unknown } | null
  return typeof candidate === 'object' && candidate !== null && typeof candidate.validate === 'function' && typeof candidate.helpText === 'function'
}

/**
 * Loads the config module at `file` (relative to the working directory); `undefined` when
 * no file is named. @throws CliConfigError when it cannot be imported, its
 * `onUserCreated` is not a function or its `passwordValidators` not an array of validators.
 */
export async function loadCliConfig(file: string | undefined): Promise<CliConfig | undefined> {
  if (file === undefined || file === '') return undefined
  let loaded: Record<string, unknown>
  try {
    loaded = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>
  } catch (error) {
    throw new CliConfigError(`cannot load the config file ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const hook = loaded['onUserCreated']
  if (hook !== undefined && typeof hook !== 'function') throw new CliConfigError(`the config file ${file}: onUserCreated must be a function`)
  const validators = loaded['passwordValidators']
  // A mistyped list must not pass every password: said before anything is written.
  if (validators !== undefined && !(Array.isArray(validators) && validators.every(isValidator))) {
    throw new CliConfigError(`the config file ${file}: passwordValidators must be an array of validators (objects with validate and helpText methods), or [] for none`)
  }
  return {
    ...(hook === undefined ? {} : { onUserCreated: hook as NonNullable<CliConfig['onUserCreated']> }),
    ...(validators === undefined ? {} : { passwordValidators: Object.freeze([...(validators as PasswordValidator[])]) }),
  }
}

/** The config's hook bound to the command's database, as a store's `onUserCreated`; `undefined` without one. */
export function boundHook(config: CliConfig | undefined, context: CliHookContext): UserCreatedHook | undefined {
  const hook = config?.onUserCreated
  return hook === undefined ? undefined : (user) => hook(user, context)
}
