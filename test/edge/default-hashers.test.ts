/**
 * Each runtime's default password hasher (issue 43): Node's is scrypt, workerd's (no
 * node:crypto) is Django's PBKDF2-SHA256 at Django 5.2's 1,000,000 iterations over Web Crypto.
 * A hash made by either default verifies with the other's, and Django itself checks the
 * PBKDF2 hashes gatehouse makes, and gatehouse the ones Django makes at that count.
 */
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pbkdf2Hasher } from 'drf-gatehouse'
import { runCommand } from '../helpers/run-command.js'
import { runPasswordOps, type PasswordOp, type PasswordOutcome } from './password-ops.js'
import { bundleWorker } from './worker-bundle.js'
import { startWorker, type RunningWorker } from './workerd.js'

const PASSWORD = 'pässwörd ☃ 🔑'
const PBKDF2_DEFAULT = /^pbkdf2_sha256\$1000000\$[A-Za-z0-9]{22}\$[A-Za-z0-9+/]{43}=$/

let worker: RunningWorker

beforeAll(async () => {
  worker = await startWorker((await bundleWorker('test/edge/password-worker.ts')).code)
}, 120_000)

afterAll(async () => {
  await worker?.stop()
})

async function onWorkerd(ops: readonly PasswordOp[]): Promise<PasswordOutcome[]> {
  const response = await fetch(worker.url, { method: 'POST', body: JSON.stringify(ops) })
  if (response.status !== 200) throw new Error(`workerd answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as PasswordOutcome[]
}

/** Runs Python with Debian's Django (settings configured, no project), the input as JSON on stdin. */
async function django(lines: readonly string[], input: unknown): Promise<unknown> {
  const program = ['import json, sys', 'from django.conf import settings', 'settings.configure()', 'data = json.loads(sys.stdin.read())', ...lines].join('\n')
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV']) delete env[name]
  const result = await runCommand('/usr/bin/python3', ['-c', program], { cwd: tmpdir(), env, input: JSON.stringify(input), timeoutMs: 120_000 })
  if (result.code !== 0) throw new Error(`Django failed: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

describe('default hashers across Node, workerd and Django', () => {
  it("Node's default (scrypt) and workerd's (PBKDF2) verify each other's hashes, and no wrong password", async () => {
    const [fromNode] = await runPasswordOps([{ op: 'hash-default', password: PASSWORD }])
    const [fromEdge] = await onWorkerd([{ op: 'hash-default', password: PASSWORD }])
    expect(fromNode).toMatch(/^scrypt\$131072\$8\$1\$/)
    expect(fromEdge).toMatch(PBKDF2_DEFAULT)
    const checks = (encoded: PasswordOutcome | undefined): PasswordOp[] => [
      { op: 'verify-default', password: PASSWORD, encoded: encoded as string },
      { op: 'verify-default', password: 'not the password', encoded: encoded as string },
    ]
    expect(await onWorkerd(checks(fromNode))).toEqual([true, false])
    expect(await runPasswordOps(checks(fromEdge))).toEqual([true, false])
  }, 300_000)

  it('workerd refuses, with a clear error, a scrypt hash costlier than its default allows', async () => {
    // N=2^18 needs 256 MiB, twice what a Worker has; made cheaply here as a random hash in the format.
    const costly = 'scrypt$262144$8$1$c2FsdHNhbHRzYWx0c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='
    const [outcome] = await onWorkerd([{ op: 'verify-default', password: PASSWORD, encoded: costly }])
    expect(outcome).toEqual({ error: expect.stringMatching(/needs 257 MiB to check, more than this runtime allows \(pbkdf2Hasher's scryptMaxMemory: 130 MiB\)/) as unknown })
  }, 120_000)

  it("Django checks gatehouse's PBKDF2 hashes (Node's and workerd's), and gatehouse Django's at 1,000,000 iterations", async () => {
    const fromNode = await pbkdf2Hasher().hash(PASSWORD)
    const [fromEdge] = await onWorkerd([{ op: 'hash-default', password: PASSWORD }])
    for (const encoded of [fromNode, fromEdge]) expect(encoded).toMatch(PBKDF2_DEFAULT)
    const answers = await django(
      ['from django.contrib.auth.hashers import check_password', 'print(json.dumps([check_password(p, e) for p, e in data]))'],
      [[PASSWORD, fromNode], ['not the password', fromNode], [PASSWORD, fromEdge], ['not the password', fromEdge]],
    )
    expect(answers).toEqual([true, false, true, false])

    const fromDjango = (await django(
      ["from django.contrib.auth.hashers import get_hasher", "h = get_hasher('pbkdf2_sha256')", 'print(json.dumps(h.encode(data, h.salt(), iterations=1000000)))'],
      PASSWORD,
    )) as string
    expect(fromDjango).toMatch(/^pbkdf2_sha256\$1000000\$[A-Za-z0-9]+\$[A-Za-z0-9+/]{43}=$/)
    expect(await pbkdf2Hasher().verify(PASSWORD, fromDjango)).toBe(true)
    expect(pbkdf2Hasher().needsRehash(fromDjango)).toBe(false)
    expect(await onWorkerd([{ op: 'verify-default', password: PASSWORD, encoded: fromDjango }, { op: 'verify-default', password: 'nope', encoded: fromDjango }])).toEqual([true, false])
  }, 300_000)
})
