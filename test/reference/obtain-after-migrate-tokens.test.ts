// After `gatehouse migrate-tokens`, the reference API's DRF obtain endpoint stops storing
// plaintext keys: it issues named tokens (digests only), while before the migration it is
// DRF's get-or-create. Real HTTP, the command line run on the server's own database.
import { describe, expect, it } from 'vitest'
import { cliInProcess } from '../helpers/cli-in-process.js'
import { BACKENDS } from '../helpers/databases.js'
import { useReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`obtain endpoint after migrate-tokens (${backend.name})`, () => {
    const reference = useReference(backend)

    async function obtain(path: string, username: string, password: string): Promise<Record<string, unknown>> {
      const res = await fetch(reference().baseUrl + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username, password }),
      })
      expect(res.status).toBe(200)
      return (await res.json()) as Record<string, unknown>
    }
    const drfRows = async (): Promise<number> => (await reference().ref.db.selectFrom('gatehouse_tokens').select('key').execute()).length

    it('DRF keys before; named tokens after, and no plaintext key is stored again', async () => {
      expect(await obtain('/api/auth/token/', 'alice', 'alice-pass-1')).toEqual({ token: expect.stringMatching(/^[0-9a-f]{40}$/) })
      const migrated = await cliInProcess(['migrate-tokens', '--database', reference().databaseUrl])
      expect(migrated).toMatchObject({ code: 0, stdout: expect.stringContaining('Moved 3 DRF tokens into named tokens; 0 already there\n') })
      expect(await drfRows()).toBe(0)

      const first = await obtain('/api/auth/token/', 'alice', 'alice-pass-1')
      expect(first).toEqual({ token: expect.stringMatching(/^gth_[A-Za-z0-9]{40}$/) })
      const detailed = await obtain('/api/auth/token/detailed/', 'alice', 'alice-pass-1')
      expect(detailed).toEqual({ token: expect.stringMatching(/^gth_/), user_id: 1, username: 'alice' })
      expect(detailed['token']).not.toBe(first['token'])
      expect(await drfRows()).toBe(0)

      const whoami = await fetch(`${reference().baseUrl}/api/whoami/`, { headers: { Authorization: `Token ${String(first['token'])}` } })
      expect(await whoami.json()).toEqual({ username: 'alice', authenticated: true, auth: first['token'] })
      // The migrated DRF key of bob goes on working.
      const bob = await fetch(`${reference().baseUrl}/api/whoami/`, { headers: { Authorization: 'Token b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0' } })
      expect(bob.status).toBe(200)
      const names = (await reference().ref.namedTokens.list(1)).map((t) => t.name)
      expect(names).toEqual(['drf', 'obtain', 'obtain'])
    })
  })
}
