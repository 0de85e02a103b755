// A password change ends the user's sessions, as Django's session auth hash does: log in,
// run `drf-gatehouse changepassword` on the server's database, and the old cookie is no longer
// a login. The app's own password-change view keeps the session that made the change with
// `updateSessionAuthHash`, while the user's other sessions end. Real HTTP, SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest'
import { updateSessionAuthHash } from '../../src/authentication/session-auth-hash.js'
import { BACKENDS } from '../helpers/databases.js'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { useReference } from '../helpers/reference-server.js'
import { login, type SessionCookies } from '../oracle/http-exchange.js'
import { backendUnavailable } from '../helpers/requirements.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`a password change ends sessions (${backend.name})`, () => {
    const reference = useReference(backend)

    async function whoami(session: SessionCookies): Promise<[number, unknown]> {
      const res = await fetch(`${reference().baseUrl}/api/whoami/`, { headers: { Cookie: `sessionid=${session.sessionid}` } })
      return [res.status, ((await res.json()) as { username: unknown }).username]
    }

    async function loggedIn(username: string): Promise<SessionCookies> {
      const session = await login(reference().baseUrl, username)
      if (session === null) throw new Error(`cannot log in as ${username}`)
      expect(await whoami(session)).toEqual([200, username])
      return session
    }

    it('drf-gatehouse changepassword: the old session is anonymous at once; a new login works', async () => {
      const before = await loggedIn('alice')
      const changed = await cliInProcess(['changepassword', 'alice', '--database', reference().databaseUrl], { GATEHOUSE_PASSWORD: 'alice-pass-1' })
      expect(changed).toMatchObject({ code: 0, stdout: 'Password changed successfully for user alice\n' })
      // Even set to the same password: a new hash, a new salt, so the session ends.
      expect(await whoami(before)).toEqual([200, null])
      await loggedIn('alice')
    })

    it('updateSessionAuthHash keeps the session that changed the password; the others end', async () => {
      const mine = await loggedIn('bob')
      const other = await loggedIn('bob')
      const { users, sessions } = reference().ref
      const bob = await users.findByUsername('bob')
      await users.setPassword(bob?.id ?? 0, 'bob-pass-2')
      expect(await updateSessionAuthHash({ sessions, users }, mine.sessionid)).toBe(true)
      expect(await whoami(mine)).toEqual([200, 'bob'])
      expect(await whoami(other)).toEqual([200, null])
      expect(await updateSessionAuthHash({ sessions, users }, 'no-such-session')).toBe(false)
    })

    it('a session row without the hash (written before this check, or by hand) is not a login', async () => {
      const { users, sessions } = reference().ref
      const alice = await users.findByUsername('alice')
      await sessions.save('handwrittensessionkey0000000000x', { userId: alice?.id ?? 0, data: {}, expiresAt: new Date(Date.now() + 60_000) })
      expect(await whoami({ sessionid: 'handwrittensessionkey0000000000x', csrftoken: '' })).toEqual([200, null])
    })
  })
}
