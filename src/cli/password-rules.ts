/**
 * The password rules of `create-user` and `changepassword`: the new password goes through
 * Django's four default validators (or the `--config` module's `passwordValidators`) before
 * it is stored, as Django's `createsuperuser` and `changepassword` run `validate_password`.
 * `--skip-password-validation` stores it anyway: Django's "Bypass password validation and
 * create user anyway?" answered yes, for one command.
 */
import { Option, type Command } from 'commander'
import { validatePassword, type PasswordUser, type PasswordValidator } from '../passwords/password-validation.js'
import { CliError, type CliIo } from './cli-io.js'

/** `--skip-password-validation`. */
export interface PasswordValidationOption {
  readonly skipPasswordValidation?: boolean
}

export function addPasswordValidationOption(command: Command): Command {
  return command.addOption(
    new Option('--skip-password-validation', "store the password even if the password validators refuse it (Django's \"Bypass password validation\")"),
  )
}

/**
 * Runs `validators` on `password` for `user`: each refusal is printed on stderr in Django's
 * words, one a line, then a CliError saying what was not done (`notDone`). Nothing happens
 * with `--skip-password-validation`.
 */
export async function requireValidPassword(
  password: string,
  user: PasswordUser,
  validators: readonly PasswordValidator[],
  options: PasswordValidationOption,
  io: CliIo,
  notDone: string,
): Promise<void> {
  if (options.skipPasswordValidation === true) return
  const messages = await validatePassword(password, user, validators)
  if (messages.length === 0) return
  for (const message of messages) io.stderr.write(`${message}\n`)
  throw new CliError(`${notDone}: the password validators refused the password (--skip-password-validation stores it anyway)`)
}
