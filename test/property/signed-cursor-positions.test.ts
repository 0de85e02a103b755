/**
 * A correctly signed cursor whose positions do not fit the ordering's column types is
 * `404 {"detail": "Invalid cursor"}`, never a 500 from the database: the positions are
 * checked against each field's type before any SQL. The cursors here are signed with
 * the server's own secret, so only that check stands between them and the driver.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeCursor } from '../../src/pagination/cursor-codec.js'
import type { KeyValue } from '../../src/pagination/paginator.js'
import { BACKENDS } from '../helpers/databases.js'
import { startReference, type RunningReference } from '../helpers/reference-server.js'
import { backendUnavailable } from '../helpers/requirements.js'

const ROUTES = [
  { path: '/api/articles/cursor/', scope: '-created,id' },
  { path: '/api/articles/cursor-score/', scope: '-score,id' },
] as const

/** Arbitrary JSON position values, and the shapes known to reach a driver badly typed. */
const position: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e300, -0, 0.5, 7),
  fc.constantFrom('1', '+275760-09-13T00:00:00.000Z', '2024-01-01T00:07:00Z', '2024-02-30T00:00:00.000Z', 'a\u0000b', '', 'now', '1e3'),
  fc.constantFrom({ d: '+275760-09-13T00:00:00.000Z' }, { d: '-000001-01-01T00:00:00.000Z' }, { d: '1' }, { d: '2024-01-01T00:07:00.000Z' }),
  fc.date({ noInvalidDate: true }).map((d) => ({ d: d.toISOString() })),
)

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`signed cursors with arbitrary positions on ${backend.name}`, () => {
    let server: RunningReference
    beforeAll(async () => {
      server = await startReference(await backend.create())
    })
    afterAll(async () => {
      await server?.close()
    })

    it('answer 200 or 404 "Invalid cursor", never 500', async () => {
      const secret = server.ref.secrets[0] ?? ''
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ROUTES), fc.boolean(), position, position, async (route, reverse, a, b) => {
          const cursor = encodeCursor({ reverse, key: [a, b] as KeyValue[] }, route.scope, secret)
          const res = await fetch(`${server.baseUrl}${route.path}?cursor=${cursor}`)
          const body = (await res.json()) as unknown
          if (res.status !== 200) expect([res.status, body]).toEqual([404, { detail: 'Invalid cursor' }])
        }),
        { numRuns: 150 },
      )
    })

    it('the shapes of the security report are 404, and a well-typed signed cursor is a page', async () => {
      const secret = server.ref.secrets[0] ?? ''
      const ask = async (key: unknown[]): Promise<number> =>
        (await fetch(`${server.baseUrl}/api/articles/cursor/?cursor=${encodeCursor({ reverse: false, key: key as KeyValue[] }, '-created,id', secret)}`)).status
      expect(await ask(['1', 5])).toBe(404)
      expect(await ask([{ d: '+275760-09-13T00:00:00.000Z' }, 5])).toBe(404)
      expect(await ask([new Date('2024-01-01T00:07:00Z'), 2 ** 31])).toBe(404)
      expect(await ask([new Date('2024-01-01T00:07:00Z'), 7])).toBe(200)
    })
  })
}
