/**
 * The command line with optional peers missing (issue 41 item 4), from the sources: a resolve
 * hook makes `kysely`, `pg`, `better-sqlite3` and `ioredis` unfindable, as in an app that
 * installed none of them. `--help` works; a command names the package it needs in one line and
 * exits 1. test/package/packed-tarball.test.ts checks the same on the packed package.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { runCommand, type CommandResult } from '../helpers/run-command.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const work = mkdtempSync(join(tmpdir(), 'gatehouse-no-peers-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** NODE_OPTIONS that make `refused` packages fail to resolve, with Node's own error code and message. */
function refusing(refused: readonly string[]): NodeJS.ProcessEnv {
  const hooks = join(work, `refuse-${refused.join('-')}-hooks.mjs`)
  writeFileSync(
    hooks,
    [
      `const REFUSED = new Set(${JSON.stringify(refused)})`,
      'export async function resolve(specifier, context, next) {',
      "  if (!REFUSED.has(specifier)) return next(specifier, context)",
      "  const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`)",
      "  error.code = 'ERR_MODULE_NOT_FOUND'",
      '  throw error',
      '}',
    ].join('\n'),
  )
  const register = join(work, `refuse-${refused.join('-')}.mjs`)
  writeFileSync(register, `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hooks).href)})\n`)
  return { ...process.env, NODE_OPTIONS: `--import=${pathToFileURL(register).href}` }
}

const ALL_PEERS = ['kysely', 'pg', 'better-sqlite3', 'ioredis']

/**
 * bin/drf-gatehouse.js as a user runs it (dist/, or in a checkout without it the sources through
 * tsx): not test/helpers' esbuild bundle, which would hoist every module's imports to its top.
 */
function runCli(args: readonly string[], options: { env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<CommandResult> {
  return runCommand(process.execPath, [join(ROOT, 'bin', 'drf-gatehouse.js'), ...args], { cwd: work, ...options })
}

describe('the command line without its optional peers', () => {
  it('prints --help, and a command that needs kysely says so in one line (exit 1, nothing created)', async () => {
    const env = refusing(ALL_PEERS)
    const help = await runCli(['--help'], { env, timeoutMs: 120_000 })
    expect(help.stderr).toBe('')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('dev-issuer')
    const file = join(work, 'none.sqlite3')
    const migrated = await runCli(['migrate', '--database', `sqlite:${file}`], { env, timeoutMs: 120_000 })
    expect(migrated.stderr).toBe('gatehouse: this command needs the kysely package, which is not installed: npm install kysely\n')
    expect(migrated.code).toBe(1)
    expect(existsSync(file)).toBe(false)
    const token = await runCli(['create-token', 'alice', '--database', `sqlite:${file}`], { env, timeoutMs: 120_000 })
    expect(token.stderr).toBe('gatehouse: this command needs the kysely package, which is not installed: npm install kysely\n')
    expect(token.code).toBe(1)
  }, 300_000)

  it('names pg when kysely is there and the PostgreSQL driver is not', async () => {
    const result = await runCli(['migrate', '--database', 'postgres://nobody@127.0.0.1:1/none'], { env: refusing(['pg']), timeoutMs: 120_000 })
    expect(result.stderr).toBe('gatehouse: this command needs the pg package, which is not installed: npm install pg\n')
    expect(result.code).toBe(1)
  }, 300_000)
})
