/**
 * and / or / not against DRF 3.14 itself: the same expressions over the same leaf permissions,
 * built with DRF's `&`, `|` and `~` (rest_framework.permissions, run by test/oracle/drf/
 * drf-composition.py) and with gatehouse's `and`, `or`, `not`; both halves (request and
 * object) and the message a refusal would carry must be equal for every expression, DRF's
 * `or` rule for objects and its `not` of a permission without an object half included.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { and, not, or, type Permission } from 'drf-gatehouse'
import { buildRequest } from '../../helpers/build-request.js'
import { unavailable } from '../../helpers/requirements.js'
import { anonymousUser } from '../../../src/core/user.js'
import type { PolicyContext } from '../../../src/core/policy-context.js'

const SCRIPT = fileURLToPath(new URL('./drf-composition.py', import.meta.url))
const drfInstalled = spawnSync('/usr/bin/python3', ['-c', 'import rest_framework, django'], { stdio: 'ignore' }).status === 0

/** Each leaf's request answer and object answer (`null`: no object half, DRF's default). */
const LEAVES: readonly (readonly [boolean, boolean | null])[] = [
  [true, true],
  [true, false],
  [false, true],
  [false, false],
  [true, null],
  [false, null],
]

type Expr = readonly ['leaf', number] | readonly ['not', Expr] | readonly ['and' | 'or', Expr, Expr]

function leaf(index: number): Permission {
  const [has, object] = LEAVES[index] as readonly [boolean, boolean | null]
  return {
    message: `leaf ${index}`,
    hasPermission: () => has,
    ...(object === null ? {} : { hasObjectPermission: async () => object }),
  }
}

function build(expr: Expr): Permission {
  switch (expr[0]) {
    case 'leaf':
      return leaf(expr[1])
    case 'not':
      return not(build(expr[1]))
    case 'and':
      return and(build(expr[1]), build(expr[2]))
    case 'or':
      return or(build(expr[1]), build(expr[2]))
  }
}

/** Every leaf; every pair under and/or; not of each of those; pairs with one side negated; chains of three. */
function expressions(): Expr[] {
  const leaves: Expr[] = LEAVES.map((_, i) => ['leaf', i] as const)
  const pairs: Expr[] = []
  for (const op of ['and', 'or'] as const) for (const a of leaves) for (const b of leaves) pairs.push([op, a, b])
  const negated: Expr[] = [...leaves, ...pairs].map((e) => ['not', e] as const)
  const mixed: Expr[] = []
  for (const op of ['and', 'or'] as const) for (const a of leaves) for (const b of leaves) mixed.push([op, ['not', a], b], [op, a, ['not', b]])
  const chains: Expr[] = []
  for (const [op1, op2] of [['or', 'or'], ['and', 'and'], ['or', 'and'], ['and', 'or']] as const) {
    for (const a of leaves) for (const b of leaves) for (const c of leaves) chains.push([op2, [op1, a, b], c])
  }
  return [...leaves, ...pairs, ...negated, ...mixed, ...chains]
}

const ctx: PolicyContext = { request: buildRequest({ method: 'PUT' }), user: anonymousUser(), auth: null, view: { name: 'v', throttleScope: null } }

describe.skipIf(unavailable('Django and DRF (/usr/bin/python3 with python3-djangorestframework)', drfInstalled))('and / or / not compose as DRF 3.14 composes &, | and ~', () => {
  it('answers every expression, for the request and for an object, as DRF does', async () => {
    const exprs = expressions()
    const run = spawnSync('/usr/bin/python3', [SCRIPT], { input: JSON.stringify({ leaves: LEAVES, expressions: exprs }), encoding: 'utf8' })
    expect(run.stderr).toBe('')
    const drf = JSON.parse(run.stdout) as { has: boolean; object: boolean; message: string | null }[]
    expect(drf).toHaveLength(exprs.length)
    const ours: { has: boolean; object: boolean; message: unknown }[] = []
    for (const expr of exprs) {
      const p = build(expr)
      ours.push({ has: await p.hasPermission(ctx), object: p.hasObjectPermission === undefined ? true : await p.hasObjectPermission(ctx, {}), message: p.message ?? null })
    }
    const differences = exprs.map((e, i) => ({ expr: JSON.stringify(e), ours: ours[i], drf: drf[i] })).filter((d) => JSON.stringify(d.ours) !== JSON.stringify(d.drf))
    expect(differences).toEqual([])
    // The cases the rules exist for are among them (not a table of trivially equal answers).
    expect(drf.filter((d) => d.has && !d.object).length).toBeGreaterThan(50)
  })

  it('n-ary or / and answer as DRF chains of | and & (a | b | c)', async () => {
    const leaves = LEAVES.map((_, i) => i)
    const chains: Expr[] = []
    const triples: [number, number, number][] = []
    for (const a of leaves) for (const b of leaves) for (const c of leaves) triples.push([a, b, c])
    for (const [a, b, c] of triples) chains.push(['or', ['or', ['leaf', a], ['leaf', b]], ['leaf', c]], ['and', ['and', ['leaf', a], ['leaf', b]], ['leaf', c]])
    const run = spawnSync('/usr/bin/python3', [SCRIPT], { input: JSON.stringify({ leaves: LEAVES, expressions: chains }), encoding: 'utf8' })
    const drf = JSON.parse(run.stdout) as { has: boolean; object: boolean }[]
    const ours: { has: boolean; object: boolean }[] = []
    for (const [a, b, c] of triples) {
      for (const p of [or(leaf(a), leaf(b), leaf(c)), and(leaf(a), leaf(b), leaf(c))]) {
        ours.push({ has: await p.hasPermission(ctx), object: await (p.hasObjectPermission?.(ctx, {}) ?? true) })
      }
    }
    expect(ours).toEqual(drf.map((d) => ({ has: d.has, object: d.object })))
  })
})
