/**
 * gatehouse's four password validators against Django 3.2's own (Debian's python3-django), on
 * the same generated passwords and users: every message must be the same, in the same order.
 */
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CommonPasswordValidator, MinimumLengthValidator, NumericPasswordValidator, UserAttributeSimilarityValidator, validatePassword, type PasswordValidator } from 'drf-gatehouse'
import { unavailable } from '../../helpers/requirements.js'

const PYTHON = '/usr/bin/python3'
const djangoThere = spawnSync(PYTHON, ['-c', 'import django.contrib.auth.password_validation'], { stdio: 'ignore' }).status === 0

/** Runs Django's validators on each case; answers each case's messages, or null where Python's Unicode (14) lacks a character. */
const DJANGO_SCRIPT = String.raw`
import json, sys, unicodedata
import django
from django.conf import settings
settings.configure(INSTALLED_APPS=['django.contrib.auth', 'django.contrib.contenttypes'], USE_I18N=True, LANGUAGE_CODE='en-us')
django.setup()
from django.contrib.auth.models import User
from django.contrib.auth import password_validation as pv
from django.core.exceptions import ValidationError
cases = json.load(sys.stdin)
common = pv.CommonPasswordValidator()
out = []
for case in cases:
    text = case['password'] + case['username'] + case['email']
    if any(unicodedata.category(c) == 'Cn' for c in text):
        out.append(None)
        continue
    validators = [
        pv.UserAttributeSimilarityValidator(max_similarity=case['maxSimilarity']),
        pv.MinimumLengthValidator(min_length=case['minLength']),
        common,
        pv.NumericPasswordValidator(),
    ]
    user = User(username=case['username'], email=case['email']) if case['withUser'] else None
    try:
        pv.validate_password(case['password'], user, validators)
        out.append([])
    except ValidationError as error:
        out.append(list(error.messages))
json.dump(out, sys.stdout)
`

interface Case {
  readonly password: string
  readonly username: string
  readonly email: string
  readonly withUser: boolean
  readonly minLength: number
  readonly maxSimilarity: number
}

function django(cases: readonly Case[]): (readonly string[] | null)[] {
  const run = spawnSync(PYTHON, ['-c', DJANGO_SCRIPT], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PYTHONIOENCODING: 'utf-8' } })
  if (run.status !== 0) throw new Error(`Django failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as (readonly string[] | null)[]
}

async function gatehouse(c: Case): Promise<string[]> {
  const validators: PasswordValidator[] = [
    new UserAttributeSimilarityValidator({ maxSimilarity: c.maxSimilarity }),
    new MinimumLengthValidator({ minLength: c.minLength }),
    new CommonPasswordValidator(),
    new NumericPasswordValidator(),
  ]
  return validatePassword(c.password, c.withUser ? { username: c.username, email: c.email } : null, validators)
}

const ALPHABET = ['a', 'A', 'b', 'd', 'e', 'o', 'r', 's', 'w', '1', '2', '0', '9', '.', '@', '_', '-', ' ', '\x1c', '\x85', '\ufeff', 'ß', 'İ', 'Σ', 'ς', '²', '①', '½', '٣', '𝟘', 'é', 'e\u0301', 'ａ', '\u3000', '😀']
const piece = fc.constantFrom(...ALPHABET)
/** Passwords near the interesting edges: common ones (changed in case and padded), digits, the username itself. */
function arbitraryCase(common: readonly string[]): fc.Arbitrary<Case> {
  const username = fc.oneof(fc.array(piece, { maxLength: 12 }).map((p) => p.join('')), fc.constantFrom('alice', 'bob.smith', 'Админ', 'a.b.', 'x'), fc.string({ unit: 'grapheme', maxLength: 10 }))
  return fc
    .record({
      username,
      email: fc.oneof(fc.constant(''), fc.constantFrom('alice.smith@example.com', 'bob@x.org'), fc.string({ maxLength: 12 })),
      withUser: fc.boolean(),
      minLength: fc.constantFrom(0, 1, 8, 8, 8, 12),
      maxSimilarity: fc.constantFrom(0.1, 0.5, 0.7, 0.7, 1),
      kind: fc.nat(5),
      common: fc.constantFrom(...common),
      pieces: fc.array(piece, { maxLength: 24 }),
      digits: fc.stringMatching(/^[0-9]{1,12}$/),
      any: fc.string({ unit: 'grapheme', maxLength: 30 }),
      upper: fc.boolean(),
    })
    .map((r): Case => {
      const base =
        r.kind === 0
          ? r.common
          : r.kind === 1
            ? `${r.pieces.join('')}${r.upper ? r.common.toUpperCase() : r.common}`.slice(-40)
            : r.kind === 2
              ? r.digits
              : r.kind === 3
                ? (r.upper ? r.username.toUpperCase() : r.username) + r.pieces.slice(0, 3).join('')
                : r.kind === 4
                  ? r.pieces.join('')
                  : r.any
      const password = r.kind === 0 && r.upper ? ` ${r.common.toUpperCase()}\x1c` : base
      return { password, username: r.username, email: r.email, withUser: r.withUser, minLength: r.minLength, maxSimilarity: r.maxSimilarity }
    })
}

describe.skipIf(unavailable('Django 3.2 (Debian python3-django, /usr/bin/python3)', djangoThere))('password validators: the same messages as Django 3.2', () => {
  it('on 2,000 generated passwords and users (seeded)', async () => {
    const { COMMON_PASSWORDS } = await import('../../../src/passwords/common-passwords.js')
    const common = COMMON_PASSWORDS.split('\n')
    const cases = fc.sample(arbitraryCase(common), { numRuns: 2000, seed: 36 })
    const fixed: Case[] = [
      { password: 'a', username: 'a', email: '', withUser: true, minLength: 8, maxSimilarity: 0.7 },
      { password: '', username: 'a.b.', email: '', withUser: true, minLength: 8, maxSimilarity: 0.7 },
      { password: '12345678', username: 'x', email: '', withUser: true, minLength: 8, maxSimilarity: 0.7 },
      { password: 'alice123', username: 'alice', email: '', withUser: true, minLength: 8, maxSimilarity: 0.7 },
      { password: 'smith2024', username: 'bob', email: 'alice.smith@example.com', withUser: true, minLength: 8, maxSimilarity: 0.7 },
      { password: 'correct horse battery staple', username: 'alice', email: '', withUser: true, minLength: 8, maxSimilarity: 0.7 },
      { password: '²³①', username: 'x', email: '', withUser: true, minLength: 1, maxSimilarity: 0.7 },
      { password: '½', username: 'x', email: '', withUser: true, minLength: 1, maxSimilarity: 0.7 },
    ]
    const all = [...fixed, ...cases]
    const expected = django(all)
    let compared = 0
    const kinds = new Set<string>()
    for (const [index, c] of all.entries()) {
      const want = expected[index]
      if (want === null || want === undefined) continue
      compared += 1
      for (const message of want) kinds.add(message.replace(/\d+ characters?/, 'N'))
      expect({ case: c, messages: await gatehouse(c) }).toEqual({ case: c, messages: want })
    }
    // The comparison covered every message, and most cases (few hold a character newer than Unicode 14).
    expect(compared).toBeGreaterThan(1900)
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['The password is too similar to the username.', 'The password is too similar to the email address.', 'This password is too common.', 'This password is entirely numeric.', 'This password is too short. It must contain at least N.'])
    )
  })
})
