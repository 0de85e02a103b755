/**
 * A default server (migrations run, requests served) has no async hook enabled: an enabled
 * one (e.g. an `AsyncLocalStorage` that ran once) makes every promise of every request pay
 * for Node's promise hooks for the life of the process. Checked in the reference API's own
 * process on SQLite and PostgreSQL, after it migrated, seeded and answered a token request.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startInstance, type Instance } from '../../scripts/multi-instance.js'
import { BACKENDS, type TestDatabase } from '../helpers/databases.js'
import { backendUnavailable } from '../helpers/requirements.js'

const ROOT = join(import.meta.dirname, '..', '..')
const PROBE = join(ROOT, 'test', 'helpers', 'async-hooks-probe.ts')
const MAIN = join(ROOT, 'examples', 'reference-api', 'main.ts')
const BOB_TOKEN = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0'

/** Asks the probe in `instance` and waits for its answer. */
async function asyncHooks(instance: Instance): Promise<string> {
  const seen = instance.output().length
  instance.child.kill('SIGUSR2')
  for (let i = 0; i < 200; i++) {
    const match = /async hooks: (on|off)/.exec(instance.output().slice(seen))
    if (match?.[1] !== undefined) return match[1]
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no answer from the probe:\n${instance.output()}`)
}

describe('the probe', () => {
  // An enabled createHook, not an AsyncLocalStorage run: from Node 24 on, AsyncLocalStorage is
  // built on AsyncContextFrame and enables no promise hook, so it would not turn the probe on.
  it('sees a hook that is on: one enabled async hook', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', PROBE, '--input-type=module', '-e', [
      "import { createHook } from 'node:async_hooks'",
      "const before = new Promise((r) => process.once('SIGUSR1', r))",
      "setInterval(() => {}, 1000)",
      "console.log('ready')",
      "await before",
      "createHook({ init() {} }).enable()",
      "console.log('ran')",
    ].join('\n')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    const line = async (pattern: RegExp, from: number): Promise<string> => {
      for (let i = 0; i < 400; i++) {
        const match = pattern.exec(output.slice(from))
        if (match !== null) return match[1] ?? match[0]
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`no ${String(pattern)} in:\n${output}`)
    }
    try {
      await line(/ready/, 0)
      let seen = output.length
      child.kill('SIGUSR2')
      expect(await line(/async hooks: (on|off)/, seen)).toBe('off')
      seen = output.length
      child.kill('SIGUSR1')
      await line(/ran/, seen)
      seen = output.length
      child.kill('SIGUSR2')
      expect(await line(/async hooks: (on|off)/, seen)).toBe('on')
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)
})

for (const backend of BACKENDS) {
  describe.skipIf(backendUnavailable(backend))(`a default reference API on ${backend.name}`, () => {
    let database: TestDatabase | undefined
    let instance: Instance | undefined
    afterAll(async () => {
      await instance?.stop()
      await database?.drop()
    }, 60_000)

    it('has no async hook enabled after migrating and serving requests', async () => {
      database = await backend.create()
      instance = await startInstance({ env: { DATABASE_URL: database.url, REDIS_URL: undefined }, script: ['--import', PROBE, MAIN, 'serve'], startTimeoutMs: 240_000 })
      const answer = await fetch(`${instance.baseUrl}/api/articles/?page=2`, { headers: { Authorization: `Token ${BOB_TOKEN}` } })
      expect(answer.status).toBe(200)
      await answer.text()
      expect(await asyncHooks(instance)).toBe('off')
    }, 400_000)
  })
}
