/**
 * A fresh clone has no dist/ (it is built when the package is packed): `npx drf-gatehouse …` then
 * runs the command line from its TypeScript source through tsx, as the README's demo does.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { runCommand } from '../helpers/run-command.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const clone = mkdtempSync(join(tmpdir(), 'gatehouse-clone-'))

afterAll(() => rmSync(clone, { recursive: true, force: true }))

describe('bin/drf-gatehouse.js in a clone without dist/', () => {
  it('runs the command line from src/ (create-user, then create-token on a new SQLite file)', async () => {
    // The clone's layout: bin/, src/, node_modules/ and package.json, and no dist/.
    mkdirSync(join(clone, 'bin'))
    copyFileSync(join(ROOT, 'bin', 'drf-gatehouse.js'), join(clone, 'bin', 'drf-gatehouse.js'))
    copyFileSync(join(ROOT, 'package.json'), join(clone, 'package.json'))
    symlinkSync(join(ROOT, 'src'), join(clone, 'src'))
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'))
    const database = `sqlite:${join(clone, 'demo.sqlite3')}`
    const run = (args: string[], input = ''): ReturnType<typeof runCommand> =>
      runCommand(process.execPath, [join(clone, 'bin', 'drf-gatehouse.js'), ...args], { cwd: clone, input, timeoutMs: 120_000 })
    const created = await run(['create-user', 'zed', '--no-password', '--database', database])
    expect(created.stderr).toBe('')
    expect(created.code).toBe(0)
    const token = await run(['create-token', 'zed', '--database', database])
    expect(token.stderr).toBe('')
    expect(token.stdout.trim()).toMatch(/^Generated token [0-9a-f]{40} for user zed$/)
    expect(token.code).toBe(0)
  })
})
