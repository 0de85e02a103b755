/**
 * The time claims of a validly signed token (`exp`, `iat`, `nbf`), of every JSON type and every
 * spelling Python's `int()` reads, checked by the real simplejwt 5.2.2 (PyJWT 2.6) and by
 * gatehouse's codec: the same claims or the same message, and a 401 wherever simplejwt crashes
 * (its 500). Seeded (`JWT_CLAIMS_SEED`, printed); one python process checks the whole sample.
 */
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JwtCodec, TokenError, resolveJwtSettings } from 'drf-gatehouse/jwt'
import { signed } from './jwt-exchange.js'
import { simplejwt, type SimplejwtAnswer } from './simplejwt.js'
import { JWT_ORACLE_KEY } from './simplejwt-oracle.js'
import { unavailable } from '../../helpers/requirements.js'

const SEED = Number(process.env['JWT_CLAIMS_SEED'] ?? 2526)
const RUNS = Number(process.env['JWT_CLAIMS_RUNS'] ?? 300)
const codec = new JwtCodec(resolveJwtSettings({ signingKey: JWT_ORACLE_KEY }))
const available = spawnSync('/usr/bin/python3', ['-c', 'import rest_framework_simplejwt'], { stdio: 'ignore' }).status === 0

/** Writes `n` in another script's decimal digits (Python's `int()` reads every `Nd` digit). */
const inDigits = (n: number, zero: number): string => [...String(n)].map((d) => (d === '-' ? d : String.fromCodePoint(zero + Number(d)))).join('')

/** A time a second is never going to tip: an hour or more either side of now. */
const when = fc.constantFrom(-86_400, -3600, 3600, 86_400).map((offset) => Math.floor(Date.now() / 1000) + offset)

/** A time claim's value: a number, a string of digits as Python and JSON clients spell them, or any other JSON value. */
const timeValue: fc.Arbitrary<unknown> = fc.oneof(
  when,
  when.map((t) => t + 0.5),
  when.map((t) => String(t)),
  fc.tuple(when, fc.constantFrom(' ', '\t', '+', '0', '\u00a0', '\u2003', '\ufeff')).map(([t, pad]) => (pad === '+' || pad === '0' ? `${pad}${t}` : `${pad}${t}${pad}`)),
  when.map((t) => `${String(t).slice(0, 4)}_${String(t).slice(4)}`),
  fc.tuple(when, fc.constantFrom(0x0660, 0xff10, 0x0966)).map(([t, zero]) => inDigits(t, zero)),
  when.map((t) => `${t}.0`),
  fc.constantFrom<unknown>('abc', '', '1e9', '0x10', true, false, null, [], {}, [1], 0, -1, 1e300, 2 ** 53),
)

const now = Math.floor(Date.now() / 1000)
/** One claim: mostly a value that passes (so the others get tested), else any value, else absent. */
const claim = (passing: number): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(passing) }, { weight: 4, arbitrary: timeValue }, { weight: 1, arbitrary: fc.constant(undefined) })
const claimSet = fc.tuple(claim(now + 3600), claim(now - 3600), claim(now - 3600)).map(([exp, iat, nbf]) => {
  const times: Record<string, unknown> = {}
  if (exp !== undefined) times['exp'] = exp
  if (iat !== undefined) times['iat'] = iat
  if (nbf !== undefined) times['nbf'] = nbf
  return times
})

/** gatehouse's answer for a token, in simplejwt.py's shape. */
async function gatehouse(token: string): Promise<SimplejwtAnswer> {
  try {
    return { payload: { ...(await codec.decode(token, null)) } }
  } catch (error) {
    if (error instanceof TokenError) return { error: error.message }
    throw error
  }
}

describe.skipIf(unavailable('python3 with simplejwt (python3-djangorestframework-simplejwt)', available))('time claims of every type: simplejwt 5.2.2 and gatehouse agree', () => {
  it(`${RUNS} generated claim sets (seed ${SEED})`, async () => {
    console.log(`time-claims property: seed ${SEED}, ${RUNS} claim sets (JWT_CLAIMS_SEED, JWT_CLAIMS_RUNS)`)
    const sets = fc.sample(claimSet, { seed: SEED, numRuns: RUNS })
    const tokens = await Promise.all(sets.map((times) => signed({ token_type: 'access', jti: 'a'.repeat(32), user_id: 1, ...times })))
    const theirs = await simplejwt(
      JWT_ORACLE_KEY,
      tokens.map((token) => ({ op: 'check', token, class: 'untyped' })),
    )
    const differences: string[] = []
    const kinds = new Map<string, number>()
    for (const [i, token] of tokens.entries()) {
      const their = theirs[i] ?? {}
      const ours = await gatehouse(token)
      const kind = their.crash !== undefined ? 'simplejwt crash' : their.error !== undefined ? `error: ${their.error}` : 'accepted'
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      // simplejwt crashing (a 500 on the wire) is where gatehouse answers a 401 instead (README).
      if (their.crash !== undefined) {
        if (ours.error === undefined) differences.push(`${JSON.stringify(sets[i])}: simplejwt crashes (${their.crash}), gatehouse accepts`)
        continue
      }
      if (JSON.stringify(their) !== JSON.stringify(ours)) differences.push(`${JSON.stringify(sets[i])}: simplejwt ${JSON.stringify(their)}, gatehouse ${JSON.stringify(ours)}`)
    }
    console.log(`simplejwt's answers: ${JSON.stringify(Object.fromEntries(kinds))}`)
    expect(differences).toEqual([])
  }, 120_000)
})
