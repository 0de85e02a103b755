// The password hashing memory budget (issue 45 item 9) over real HTTP on each of the four
// frameworks: with its one turn taken and its one place in the queue filled, Basic, token
// obtain and login answer 503 with Retry-After and a DRF-style body; the queued login then
// completes once the turn is free. The turn is held by the test, so nothing depends on timing.
import { describe, expect, it } from 'vitest'
import { FRAMEWORKS } from '../../examples/reference-api/app.js'
import { referenceConfigFromEnv } from '../../examples/reference-api/context.js'
import { PasswordBudget } from '../../src/index.js'
import { PASSWORD_CHECKS_BUSY_DETAIL } from '../../src/crypto/password-budget.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { startReference } from '../helpers/reference-server.js'
import { AdminClient, adminLogin } from '../helpers/admin-client.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')
const ALICE_BASIC = `Basic ${Buffer.from('alice:alice-pass-1').toString('base64')}`

async function until(done: () => boolean): Promise<void> {
  // A condition, not a duration: polled until the server's request has reached the budget.
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2))
}

const post = (url: string, body: Record<string, string>): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) })

for (const framework of FRAMEWORKS) {
  describe(`the password budget on ${framework} (SQLite)`, () => {
    it('past the running check and the queue: 503, Retry-After, {"detail"}; the queued login completes when the turn frees', async () => {
      const budget = new PasswordBudget({ concurrent: 1, queued: 1, retryAfterSeconds: 4 })
      const server = await startReference((await sqlite?.create()) as TestDatabase, { passwordBudget: budget }, { framework })
      let release: () => void = () => undefined
      const held = budget.run(() => new Promise<void>((resolve) => (release = resolve)))
      try {
        expect(budget.running).toBe(1)
        const queued = post(`${server.baseUrl}/api/auth/token/`, { username: 'bob', password: 'bob-pass-2' })
        let answered = false
        void queued.finally(() => (answered = true))
        await until(() => budget.waiting === 1 || answered)
        expect(budget.waiting, 'the login waits for the turn the test holds').toBe(1)
        const refused = [
          await fetch(`${server.baseUrl}/api/schemes/basic/`, { headers: { Authorization: ALICE_BASIC, Accept: 'application/json' } }),
          await post(`${server.baseUrl}/api/auth/token/`, { username: 'alice', password: 'alice-pass-1' }),
          await post(`${server.baseUrl}/api/auth/token/`, { username: 'nobody', password: 'x' }),
        ]
        for (const response of refused) {
          expect(response.status, response.url).toBe(503)
          expect(response.headers.get('retry-after')).toBe('4')
          expect(response.headers.get('content-type')).toMatch(/^application\/json/)
          expect(await response.json()).toEqual({ detail: PASSWORD_CHECKS_BUSY_DETAIL })
        }
        // The admin's login form: a 503 page, never a 500.
        const admin = await adminLogin(new AdminClient(server.baseUrl), 'admin', 'admin-pass-4')
        expect(admin.status).toBe(503)
        expect(admin.headers.get('retry-after')).toBe('4')
        expect([budget.running, budget.waiting]).toEqual([1, 1])
        release()
        await held
        const answer = await queued
        expect(answer.status).toBe(200)
        expect(Object.keys((await answer.json()) as object)).toEqual(['token'])
        const basic = await fetch(`${server.baseUrl}/api/schemes/basic/`, { headers: { Authorization: ALICE_BASIC, Accept: 'application/json' } })
        await basic.arrayBuffer()
        expect(basic.status).toBe(200)
        expect([budget.running, budget.waiting]).toEqual([0, 0])
      } finally {
        release()
        await server.close()
      }
    })
  })
}

describe('referenceConfigFromEnv: GATEHOUSE_PASSWORD_CHECKS and GATEHOUSE_PASSWORD_QUEUE', () => {
  it('unset: the library default; set: a budget of their own, the other count defaulted', () => {
    expect(referenceConfigFromEnv({}).passwordBudget).toBeUndefined()
    expect(referenceConfigFromEnv({ GATEHOUSE_PASSWORD_CHECKS: '4', GATEHOUSE_PASSWORD_QUEUE: '0' }).passwordBudget).toMatchObject({ concurrent: 4, queued: 0 })
    expect(referenceConfigFromEnv({ GATEHOUSE_PASSWORD_CHECKS: '1' }).passwordBudget).toMatchObject({ concurrent: 1, queued: 32 })
  })

  it.each([['GATEHOUSE_PASSWORD_CHECKS', '0'], ['GATEHOUSE_PASSWORD_CHECKS', 'two'], ['GATEHOUSE_PASSWORD_QUEUE', '-1']])('rejects %s=%s at start-up', (name, value) => {
    expect(() => referenceConfigFromEnv({ [name]: value })).toThrow(new RegExp(name))
  })
})
