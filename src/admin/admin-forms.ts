/** A form body's text field (`''` when absent or not text). */
export function formField(data: unknown, name: string): string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return ''
  const value = (data as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

/** Longest password accepted from a form (Django's admin has no limit; hashing a megabyte is a waste). */
const MAX_PASSWORD = 4096

/** A password pair from a form: the password, `null` for none (both empty), or the errors. */
export function passwordPair(data: unknown, allowNone: boolean): { password: string | null; errors: string[] } {
  const password = formField(data, 'password1')
  const again = formField(data, 'password2')
  if (password === '' && again === '') return allowNone ? { password: null, errors: [] } : { password: null, errors: ['Enter the new password twice.'] }
  if (password !== again) return { password: null, errors: ['The two password fields didn’t match.'] }
  if (password.length > MAX_PASSWORD) return { password: null, errors: [`The password is longer than ${MAX_PASSWORD} characters.`] }
  return { password, errors: [] }
}
