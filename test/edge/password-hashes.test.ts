/**
 * A password hashed on one runtime verifies on every other (issue 21): gatehouse's scrypt
 * hashes made on Node verify on Bun, Deno and the edge build in workerd, and theirs on Node
 * and on each other; Django's PBKDF2 hashes (made by Django itself) verify everywhere.
 * Node runs gatehouse from source in this process; Bun and Deno run it bundled as an npm
 * install resolves it; workerd runs the browser-platform build with no Node compatibility.
 */
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_SCRYPT, type ScryptParams } from 'drf-gatehouse'
import { runCommand } from '../helpers/run-command.js'
import { runPasswordOps, type PasswordOp, type PasswordOutcome } from './password-ops.js'
import { runScript } from './runtimes.js'
import { bundleScript, bundleWorker } from './worker-bundle.js'
import { startWorker, type RunningWorker } from './workerd.js'

/** A cheap cost, so a dozen hashes take seconds in JavaScript scrypt too; the format carries it. */
const CHEAP: ScryptParams = { N: 2 ** 14, r: 8, p: 1 }
/** ASCII, non-ASCII (two- to four-byte UTF-8), one NFKC folds (ﬁ → fi), and the empty password. */
const PASSWORDS = ['correct horse battery staple', 'pässwörd ☃ 🔑', '\uFB01sh and chips', ''] as const
const WRONG = 'not the password'
const RUNTIMES = ['node', 'bun', 'deno', 'workerd'] as const
type Runtime = (typeof RUNTIMES)[number]

let cli: string
let worker: RunningWorker

beforeAll(async () => {
  // "node" below is this process: under Bun or Deno the test would compare a runtime with itself.
  if ('bun' in process.versions || 'Deno' in globalThis) throw new Error('run this test under Node (it starts Bun and Deno itself)')
  cli = (await bundleScript('test/edge/password-cli.ts')).code
  worker = await startWorker((await bundleWorker('test/edge/password-worker.ts')).code)
}, 120_000)

afterAll(async () => {
  await worker?.stop()
})

/** Runs the steps on one runtime. */
async function on(runtime: Runtime, ops: readonly PasswordOp[]): Promise<PasswordOutcome[]> {
  if (runtime === 'node') return runPasswordOps(ops)
  if (runtime === 'workerd') {
    const response = await fetch(worker.url, { method: 'POST', body: JSON.stringify(ops) })
    if (response.status !== 200) throw new Error(`workerd answered ${response.status}: ${await response.text()}`)
    return (await response.json()) as PasswordOutcome[]
  }
  return JSON.parse(await runScript(runtime, cli, [JSON.stringify(ops)])) as PasswordOutcome[]
}

/**
 * Django's own PBKDF2-SHA256 hasher, for each password: the format and algorithm of
 * `make_password`, at fewer iterations than its default (the count is in the hash, and the
 * check does not depend on it) so that Deno's slower PBKDF2 keeps the test short.
 */
async function djangoHashes(passwords: readonly string[]): Promise<string[]> {
  const program = [
    'import json, sys',
    'from django.conf import settings',
    'settings.configure()',
    'from django.contrib.auth.hashers import get_hasher',
    "hasher = get_hasher('pbkdf2_sha256')",
    'print(json.dumps([hasher.encode(p, hasher.salt(), iterations=20000) for p in json.loads(sys.stdin.read())]))',
  ].join('\n')
  // Debian's Python and its Django, whatever Python environment the test run was started in.
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV']) delete env[name]
  const result = await runCommand('/usr/bin/python3', ['-c', program], { cwd: tmpdir(), env, input: JSON.stringify(passwords), timeoutMs: 120_000 })
  if (result.code !== 0) throw new Error(`Django's PBKDF2 hasher failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as string[]
}

/** A stored hash and the password it was made from. */
interface Hashed {
  readonly password: string
  readonly encoded: string
}

/** A password to try on a hash, and whether it must match. */
interface Check {
  readonly password: string
  readonly encoded: string
  readonly matches: boolean
}

/**
 * Each hash with its own password (a match), and the first of each group with a wrong one
 * (no match). A hash of the ligature password is also tried with its NFKC form, "fish and
 * chips": gatehouse's scrypt normalizes (a match), Django's PBKDF2 does not (no match there,
 * as in Django).
 */
function checksOf(groups: readonly (readonly Hashed[])[]): Check[] {
  return groups.flatMap((hashes) => [
    ...hashes.map(({ password, encoded }) => ({ password, encoded, matches: true })),
    ...hashes.slice(0, 1).map(({ encoded }) => ({ password: WRONG, encoded, matches: false })),
    ...hashes.filter(({ password }) => password.startsWith('\uFB01'))
      .map(({ encoded }) => ({ password: 'fish and chips', encoded, matches: encoded.startsWith('scrypt$') })),
  ])
}

/** Runs the checks on one runtime; resolves to what each answered beside what it should have. */
async function verifyOn(runtime: Runtime, checks: readonly Check[]): Promise<{ answered: PasswordOutcome[]; expected: boolean[] }> {
  const answered = await on(runtime, checks.map(({ password, encoded }) => ({ op: 'verify', password, encoded })))
  return { answered, expected: checks.map((check) => check.matches) }
}

describe('password hashes across Node, Bun, Deno and workerd', () => {
  it('a hash made on any runtime verifies on every runtime, and Django’s everywhere', async () => {
    // Each runtime hashes every password…
    const made = new Map<Runtime, Hashed[]>()
    for (const runtime of RUNTIMES) {
      const hashes = await on(runtime, PASSWORDS.map((password) => ({ op: 'hash', password, params: CHEAP })))
      expect(hashes, runtime).toHaveLength(PASSWORDS.length)
      for (const encoded of hashes) expect(encoded, runtime).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/)
      made.set(runtime, hashes.map((encoded, i) => ({ password: PASSWORDS[i] ?? '', encoded: encoded as string })))
    }
    const django = (await djangoHashes(PASSWORDS)).map((encoded, i) => ({ password: PASSWORDS[i] ?? '', encoded }))
    for (const { encoded } of django) expect(encoded).toMatch(/^pbkdf2_sha256\$20000\$[A-Za-z0-9]+\$[A-Za-z0-9+/]{43}=$/)

    // …and checks everyone's, its own included, and Django's.
    const checks = checksOf([...RUNTIMES.map((runtime) => made.get(runtime) ?? []), django])
    for (const runtime of RUNTIMES) {
      const { answered, expected } = await verifyOn(runtime, checks)
      expect(answered, `verified on ${runtime}`).toEqual(expected)
    }
  }, 300_000)

  it('a hash at the default cost (N=2^17, 128 MiB) moves between Node and the edge build', async () => {
    const password = PASSWORDS[1]
    const [fromNode] = await on('node', [{ op: 'hash', password, params: DEFAULT_SCRYPT }])
    const [fromEdge] = await on('workerd', [{ op: 'hash', password, params: DEFAULT_SCRYPT }])
    for (const encoded of [fromNode, fromEdge]) expect(encoded).toMatch(/^scrypt\$131072\$8\$1\$/)
    // Only the right password: each check costs a default scrypt, and wrong ones are tried above.
    const node = [{ password, encoded: fromNode as string, matches: true }]
    const edge = [{ password, encoded: fromEdge as string, matches: true }]
    for (const [runtime, checks] of [['node', edge], ['workerd', node]] as const) {
      const { answered, expected } = await verifyOn(runtime, checks)
      expect(answered, `verified on ${runtime}`).toEqual(expected)
    }
  }, 300_000)
})
