import type { ApiResponse } from '../core/api-response.js'
import type { StoredUser } from '../core/user.js'
import type { Handler } from '../core/view.js'
import { normalizeUsername } from '../core/username.js'
import { UserCreatedHookError } from '../stores/user-created-hook.js'
import type { StaffRequest } from './admin-auth.js'
import { formField, passwordPair } from './admin-forms.js'
import type { ResolvedAdminOptions } from './admin-options.js'
import { csrfInput, h, redirect } from './admin-page.js'
import { passwordHelp, passwordProblems } from './password-rules.js'
import { page, staffPage, userPath } from './staff-pages.js'

/** Django's username rule: 1 to 150 letters, digits and `@.+-_` (Unicode letters and digits included). */
const USERNAME = /^[\p{L}\p{N}_.@+-]{1,150}$/u

interface AddValues {
  readonly username: string
  readonly isStaff: boolean
  readonly isSuperuser: boolean
  readonly isActive: boolean
}

function addForm(staff: StaffRequest, options: ResolvedAdminOptions, errors: readonly string[], values: AddValues): ApiResponse {
  // Staff and superuser accounts are made by superusers only (see mayChange).
  const roles =
    staff.user.isSuperuser === true
      ? `<label class="check"><input type="checkbox" name="is_staff" value="1"${values.isStaff ? ' checked' : ''}> Staff (may use these pages)</label>
<label class="check"><input type="checkbox" name="is_superuser" value="1"${values.isSuperuser ? ' checked' : ''}> Superuser (may change staff accounts here)</label>`
      : '<p class="muted">Only a superuser can create a staff or superuser account.</p>'
  const body = `<section class="card">
${errors.map((e) => `<p class="message error">${h(e)}</p>`).join('\n')}
<form method="post" action="${h(options.prefix)}users/add/">
${csrfInput(options.csrf.formField, staff.csrf.token)}
<label for="id_username">Username</label>
<input type="text" id="id_username" name="username" value="${h(values.username)}" required maxlength="150" autocomplete="off">
<p class="muted">150 characters or fewer: letters, digits and @/./+/-/_ only.</p>
<label for="id_password1">Password</label>
<input type="password" id="id_password1" name="password1" autocomplete="new-password">
<label for="id_password2">Password (again)</label>
<input type="password" id="id_password2" name="password2" autocomplete="new-password">
${passwordHelp(options)}
<p class="muted">Leave both empty for an account with no usable password (tokens only).</p>
<label class="check"><input type="checkbox" name="is_active" value="1"${values.isActive ? ' checked' : ''}> Active</label>
${roles}
<p><button type="submit">Create the user</button></p>
</form>
</section>`
  return page(staff, 'Add a user', body, errors.length === 0 ? 200 : 400)
}
/** `GET`/`POST users/add/`: the form, then the store's `create` (its `onUserCreated` hook included). */
export function userAddHandlers(options: ResolvedAdminOptions): { GET: Handler; POST: Handler } {
  const GET = staffPage(options, async (_ctx, staff) => addForm(staff, options, [], { username: '', isStaff: false, isSuperuser: false, isActive: true }))
  const POST = staffPage(options, async (ctx, staff) => {
    const data = await ctx.request.body()
    // NFKC, as Django's UsernameField and normalize_username: `ａｄｍｉｎ` is `admin`, which exists.
    const username = normalizeUsername(formField(data, 'username').trim())
    const values: AddValues = {
      username: username.slice(0, 150),
      isStaff: formField(data, 'is_staff') !== '',
      isSuperuser: formField(data, 'is_superuser') !== '',
      isActive: formField(data, 'is_active') !== '',
    }
    const errors: string[] = []
    if (!USERNAME.test(username)) errors.push('Enter a valid username: 150 characters or fewer, letters, digits and @/./+/-/_ only.')
    if ((values.isStaff || values.isSuperuser) && staff.user.isSuperuser !== true) errors.push('Only a superuser can create a staff or superuser account.')
    const { password, errors: passwordErrors } = passwordPair(data, true)
    errors.push(...passwordErrors)
    // Django's UserCreationForm: the rules run with the new user's name (similarity to it).
    if (password !== null) errors.push(...(await passwordProblems(options, password, { username })))
    if (errors.length === 0 && (await options.users.findByUsername(username)) !== null) errors.push('A user with that username already exists.')
    if (errors.length > 0) return addForm(staff, options, errors, values)
    let user: StoredUser
    try {
      user = await options.users.create({ username, password, isStaff: values.isStaff, isActive: values.isActive, ...(values.isSuperuser ? { isSuperuser: true } : {}) })
    } catch (error) {
      if (error instanceof UserCreatedHookError) {
        options.api.settings.logError(error, { method: ctx.request.method, path: ctx.request.url.pathname })
        return redirect(`${userPath(options, error.user.id)}?done=created-hook-failed`, 303)
      }
      // A concurrent create of the same name lost the unique race.
      if ((await options.users.findByUsername(username)) !== null) return addForm(staff, options, ['A user with that username already exists.'], values)
      throw error
    }
    return redirect(`${userPath(options, user.id)}?done=created`, 303)
  })
  return { GET, POST }
}
