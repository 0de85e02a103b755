// After `drf-gatehouse migrate-tokens`, the reference API's DRF obtain endpoint stops storing
// plaintext keys: it issues named tokens (digests only), while before the migration it is
// DRF's get-or-create. Real HTTP, the command line run on the server's own database.
import { describe, expect, it } from 'vitest'
import { PermissionDenied } from '../../src/core/errors.js'
import { namedTokenIssuer } from '../../src/views/named-token-issuer.js'
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

    it('each obtained token expires after 10 hours by default (django-rest-knox’s TOKEN_TTL), not never', async () => {
      const before = Date.now()
      await obtain('/api/auth/token/', 'bob', 'bob-pass-2')
      const obtained = (await reference().ref.namedTokens.list(2)).filter((t) => t.name === 'obtain')
      expect(obtained).toHaveLength(1)
      const expires = obtained[0]?.expiresAt?.getTime() ?? Number.NaN
      expect(expires).toBeGreaterThanOrEqual(before + 36_000_000 - 1_000)
      expect(expires).toBeLessThanOrEqual(Date.now() + 36_000_000 + 1_000)
    })

    it('maxPerUser refuses a new token past the limit of live ones (django-rest-knox’s TOKEN_LIMIT_PER_USER), until one is revoked', async () => {
      const store = reference().ref.namedTokens
      const issuer = namedTokenIssuer(store, { name: 'limited', maxPerUser: 2 })
      const userId = 4
      await issuer.getOrCreate(userId)
      const second = await issuer.getOrCreate(userId)
      const refused = issuer.getOrCreate(userId)
      await expect(refused).rejects.toBeInstanceOf(PermissionDenied)
      await expect(refused).rejects.toMatchObject({ status: 403, detail: 'Maximum amount of tokens allowed per user exceeded.' })
      // Tokens of other names (a user's own "laptop") do not count; a revoked one frees a place.
      await store.create(userId, { name: 'laptop', expiresIn: null })
      const info = (await store.list(userId)).find((t) => t.name === 'limited' && second.key.startsWith(t.displayPrefix))
      expect(info).toBeDefined()
      expect(await store.revoke(userId, info?.id ?? -1)).toBe(true)
      expect((await issuer.getOrCreate(userId)).key).toMatch(/^gth_/)
      expect(() => namedTokenIssuer(store, { maxPerUser: 0 })).toThrow(/maxPerUser/)
      expect(() => namedTokenIssuer(store, { expiresIn: 0 })).toThrow(/expiresIn/)
    })
  })
}
