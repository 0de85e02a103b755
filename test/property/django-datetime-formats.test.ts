/**
 * The date-time filters read a value as Django 3.2's `forms.DateTimeField` does (the oracle's
 * django-filter `DateTimeFilter`): `parse_datetime`, then Django's input formats through
 * `datetime.strptime` (`2024-01-01`, `01/02/2024`, `Jan 02 2024`…). Compared with Django itself
 * on generated values: the same instant, or both refuse.
 */
import { execFileSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseDjangoDateTime } from '../../src/pagination/filters/parse-datetime.js'
import { unavailable } from '../helpers/requirements.js'

const PYTHON = '/usr/bin/python3'
function djangoAvailable(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import django'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Django's reading of each value: microseconds since the epoch as a string, or null. */
function djangoReads(values: readonly string[]): (string | null)[] {
  const script = `
import json, sys, django
from django.conf import settings
settings.configure(USE_TZ=True, TIME_ZONE='UTC', USE_L10N=False)
django.setup()
from django import forms
from django.core.exceptions import ValidationError
import datetime
out = []
for v in json.load(sys.stdin):
    try:
        d = forms.DateTimeField().clean(v)
        delta = d - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        out.append(str((delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds))
    except ValidationError:
        out.append(None)
print(json.dumps(out))
`
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(values), encoding: 'utf8' })) as (string | null)[]
}

const ours = (value: string): string | null => {
  const parsed = parseDjangoDateTime(value)
  return parsed === null ? null : String(BigInt(parsed.epochMs) * 1000n + BigInt(parsed.extraMicros))
}

const SAMPLES = [
  '2024-01-01', '2024-1-1', '01/02/2024', '1/2/2024', '1/2/24', '12/31/69', '12/31/68', 'Jan 02 2024', 'jan 2, 2024', 'JANUARY 2 2024',
  '2 Feb 2024', '02 February, 2024', 'Sep 30 2024', 'ſep 30 2024', 'Apr 1 2024', 'apİl 1 2024', 'aprİl 1 2024', 'APRIL 1 2024', 'May 5 2024', '2024-01-01 10:00',
  '2024-01-01 10:00:05.5', '01/02/2024 3:04', '01/02/2024 3:04:05.123456', '01/02/2024 3:04:05.1234567', '2024-02-30', '02/30/2024',
  '2024-01-01  ', ' 2024-01-01', '2024-01-01x', '13/01/2024', '00/01/2024', 'Jan  2 2024', 'Jan\t2 2024', '٢٠٢٤-01-01', '2024-01-01 24:00',
  '2024-01-01 23:60', '2024-01-01 10:00:60', '1/2/2024 10:7', '', 'x', '2024', '2024-01', '1 Jan 0999', 'Feb 29 2023', 'Feb 29 2024',
]

describe.skipIf(unavailable('Django (python3-django)', djangoAvailable()))("date-time filter values as Django's DateTimeField reads them", () => {
  it('reads the samples as Django does', () => {
    const django = djangoReads(SAMPLES)
    expect(SAMPLES.map(ours)).toEqual(django)
  })

  it('reads generated values as Django does', () => {
    const piece = fc.constantFrom('2024', '24', '69', '1', '01', '12', '13', '31', '30', '29', '0', '9', '-', '/', ' ', ':', '.', ',', 'Jan', 'may', 'September', 'T', 'Z', '+01:00', '5', '123456', '  ')
    const values = fc.sample(fc.array(piece, { minLength: 1, maxLength: 9 }).map((parts) => parts.join('')), { numRuns: 1500, seed: 4242 })
    const django = djangoReads(values)
    const mismatches = values.map((value, i) => [value, ours(value), django[i]] as const).filter(([, a, b]) => a !== b)
    expect(mismatches.slice(0, 10)).toEqual([])
  })
})
