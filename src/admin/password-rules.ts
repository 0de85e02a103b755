import { validatePassword, type PasswordUser } from '../passwords/password-validation.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { h } from './admin-page.js'

/** The password rules as the forms show them under the password field (Django's help list). */
export function passwordHelp(options: ResolvedAdminOptions): string {
  const texts = options.passwordValidators.map((validator) => validator.helpText())
  return texts.length === 0 ? '' : `<ul class="muted" id="password-help">${texts.map((text) => `<li>${h(text)}</li>`).join('')}</ul>`
}

/** The configured validators' messages refusing `password` for `user` (none: accepted). */
export function passwordProblems(options: ResolvedAdminOptions, password: string, user: PasswordUser): Promise<string[]> {
  return validatePassword(password, user, options.passwordValidators)
}
