import { afterEach, describe, expect, it, vi } from 'vitest'
import { StoreUnavailable } from './store-faults.js'
import { createStoreOutageLog } from './store-outage-log.js'

const timeout = (): StoreUnavailable => new StoreUnavailable('redis', 'throttle reserve', new Error('Command timed out'))
const at = { method: 'GET', path: '/api/x/' }

describe('createStoreOutageLog', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('one line per 503 with its cause, the stack once per outage, and a count when the outage ends', () => {
    vi.useFakeTimers()
    const lines: string[] = []
    const log = createStoreOutageLog({ write: (line) => lines.push(line), quietMs: 1_000, now: () => Date.now() })
    for (let i = 0; i < 5; i++) {
      log(timeout(), at)
      vi.advanceTimersByTime(300)
    }
    const stacks = lines.filter((line) => line.includes('outage began'))
    expect(stacks).toHaveLength(1)
    expect(stacks[0]).toMatch(/^gatehouse: redis outage began \(redis throttle reserve timeout\); its stack, once per outage:\nError: Command timed out\n +at /)
    expect(lines.filter((line) => line.startsWith('gatehouse: 503 '))).toEqual(
      Array.from({ length: 5 }, () => 'gatehouse: 503 GET /api/x/: redis throttle reserve timeout (Command timed out)'),
    )
    expect(lines.some((line) => line.includes('outage over'))).toBe(false)
    vi.advanceTimersByTime(1_000)
    expect(lines.at(-1)).toBe('gatehouse: redis outage over: 5 requests answered 503 in 1.2 s')
    // A new fault later is a new outage, with its stack again.
    log(timeout(), at)
    expect(lines.filter((line) => line.includes('outage began'))).toHaveLength(2)
  })

  it('keeps one outage per store', () => {
    vi.useFakeTimers()
    const lines: string[] = []
    const log = createStoreOutageLog({ write: (line) => lines.push(line), quietMs: 1_000 })
    log(timeout(), at)
    log(new StoreUnavailable('postgres', 'query', new Error('Query read timeout')), at)
    log(timeout(), at)
    expect(lines.filter((line) => line.includes('outage began'))).toHaveLength(2)
    vi.advanceTimersByTime(1_000)
    expect(lines.filter((line) => line.includes('outage over')).sort()).toEqual([
      'gatehouse: postgres outage over: 1 request answered 503 in 0.0 s',
      'gatehouse: redis outage over: 2 requests answered 503 in 0.0 s',
    ])
  })
})
