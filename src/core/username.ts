/**
 * Django's `AbstractBaseUser.normalize_username`: NFKC, so that a name cannot be created
 * beside a look-alike spelling of another (`ａｄｍｉｎ`, fullwidth, is `admin`). Applied
 * wherever gatehouse creates a user: the stores' `create`, the admin's add-user form, the
 * `create-user` command, `import-django`; `RemoteUserAuthentication` creates no user whose
 * name is not already normal.
 *
 * @example
 * normalizeUsername('ａｄｍｉｎ') // 'admin'
 */
export function normalizeUsername(username: string): string {
  return username.normalize('NFKC')
}
