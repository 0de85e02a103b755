// The admin's add-user and set-password forms run Django's four default password validators
// (issue 36 item 6), over real HTTP on each of the four frameworks (SQLite): the rules shown
// under the fields, every message of a refused password (Django's words, in Django's order),
// nothing created or changed, and a password that passes accepted.
import { describe, expect, it } from 'vitest'
import { FRAMEWORKS } from '../../examples/reference-api/app.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { startReference } from '../helpers/reference-server.js'
import { AdminClient, adminLogin, csrfOf, type Page } from '../helpers/admin-client.js'

const HELP = [
  'Your password can’t be too similar to your other personal information.',
  'Your password must contain at least 8 characters.',
  'Your password can’t be a commonly used password.',
  'Your password can’t be entirely numeric.',
]

/** The error messages of a form page, in order. */
function errorsOf(page: Page): string[] {
  return [...page.html.matchAll(/<p class="message error">([^<]*)<\/p>/g)].map((m) => m[1] ?? '')
}

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')

for (const framework of FRAMEWORKS) {
  describe(`admin password rules on ${framework} (SQLite)`, () => {
    it('add-user: refuses what Django 3.2 refuses, with its messages; creates the user once the password passes', async () => {
      const server = await startReference((await sqlite?.create()) as TestDatabase, {}, { framework })
      try {
        const staff = new AdminClient(server.baseUrl)
        expect((await adminLogin(staff, 'admin', 'admin-pass-4')).status).toBe(303)
        const form = await staff.get('/admin/users/add/')
        expect(form.html).toContain(`<ul class="muted" id="password-help">${HELP.map((t) => `<li>${t}</li>`).join('')}</ul>`)
        // Each answer as Django 3.2's validate_password gives it for a user named zelda (checked with Django).
        for (const [password, messages] of [
          ['a', ['This password is too short. It must contain at least 8 characters.', 'This password is too common.']],
          ['zelda123', ['The password is too similar to the username.']],
          ['12345678', ['This password is too common.', 'This password is entirely numeric.']],
          ['83920174', ['This password is entirely numeric.']],
        ] as const) {
          const refused = await staff.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'zelda', password1: password, password2: password, is_active: '1' })
          expect(refused.status, password).toBe(400)
          expect(errorsOf(refused), password).toEqual(messages)
          expect(refused.html).not.toContain(password === 'a' ? 'value="a"' : password)
          expect(await server.ref.users.findByUsername('zelda')).toBeNull()
        }
        // No password at all is still allowed (an account for tokens only): nothing to validate.
        const created = await staff.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'zelda', password1: 'tulip-orbit-42', password2: 'tulip-orbit-42', is_active: '1' })
        expect(created.status).toBe(303)
        expect(await server.ref.users.authenticate('zelda', 'tulip-orbit-42')).not.toBeNull()
        expect((await staff.post('/admin/users/add/', { csrfmiddlewaretoken: csrfOf(form), username: 'svc', password1: '', password2: '', is_active: '1' })).status).toBe(303)
      } finally {
        await server.close()
      }
    })

    it('set-password: refuses a password too like the user’s name or too short, and keeps the old one; accepts one that passes', async () => {
      const server = await startReference((await sqlite?.create()) as TestDatabase, {}, { framework })
      try {
        const staff = new AdminClient(server.baseUrl)
        expect((await adminLogin(staff, 'admin', 'admin-pass-4')).status).toBe(303)
        const page = await staff.get('/admin/users/2/')
        expect(page.html).toContain('id="password-help"')
        for (const [password, messages] of [
          ['bobbob', ['This password is too short. It must contain at least 8 characters.', 'This password is too common.']],
          ['bob', ['The password is too similar to the username.', 'This password is too short. It must contain at least 8 characters.', 'This password is too common.']],
        ] as const) {
          const refused = await staff.post('/admin/users/2/password/', { csrfmiddlewaretoken: csrfOf(page), password1: password, password2: password })
          expect(refused.status, password).toBe(400)
          expect(errorsOf(refused), password).toEqual(messages)
        }
        expect(await server.ref.users.authenticate('bob', 'bob-pass-2')).not.toBeNull()
        const changed = await staff.post('/admin/users/2/password/', { csrfmiddlewaretoken: csrfOf(page), password1: 'Bob-2024', password2: 'Bob-2024' })
        expect(changed.status).toBe(303)
        expect(await server.ref.users.authenticate('bob', 'Bob-2024')).not.toBeNull()
      } finally {
        await server.close()
      }
    })
  })
}
