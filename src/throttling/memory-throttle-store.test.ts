import { describe, expect, it } from 'vitest'
import { MemoryThrottleStore } from './memory-throttle-store.js'
import { runThrottleStoreSuite } from '../../test/helpers/throttle-store-suite.js'

describe('MemoryThrottleStore', () => {
  runThrottleStoreSuite({ create: () => new MemoryThrottleStore() })

  it('forgets idle keys, so one-off clients do not leak memory', async () => {
    const store = new MemoryThrottleStore()
    for (let i = 0; i < 999; i++) await store.hit(`client-${i}`, 0, 1_000, 5)
    expect(store.size).toBe(999)
    // The 1000th hit sweeps: every earlier key's newest hit has left its window.
    await store.hit('late', 5_000, 1_000, 5)
    expect(store.size).toBe(1)
  })

  it('drops a key whose history is empty', async () => {
    const store = new MemoryThrottleStore()
    await store.hit('k', 0, 1_000, 0)
    expect(store.size).toBe(0)
  })

  it('holds at most maxKeys keys, dropping the least recently hit first', async () => {
    const store = new MemoryThrottleStore({ maxKeys: 100 })
    for (let i = 0; i < 100; i++) await store.hit(`client-${i}`, 0, 60_000, 5)
    await store.hit('client-0', 1, 60_000, 5) // client-0 is now the most recent
    for (let i = 100; i < 150; i++) await store.hit(`client-${i}`, 2, 60_000, 5)
    expect(store.size).toBe(100)
    // client-1..50 were the oldest and are gone (a fresh budget); client-0 kept its two hits.
    expect((await store.hit('client-0', 3, 60_000, 5)).count).toBe(3)
    expect((await store.hit('client-1', 3, 60_000, 5)).count).toBe(1)
    expect(store.size).toBe(100)
  })

  it('stays bounded under a flood of distinct clients (60,000 addresses, cap 10,000)', async () => {
    const store = new MemoryThrottleStore({ maxKeys: 10_000 })
    for (let i = 0; i < 60_000; i++) await store.hit(`ip-${i}`, i, 3_600_000, 100)
    expect(store.size).toBe(10_000)
  })

  it('rejects a maxKeys that is not a positive integer', () => {
    for (const maxKeys of [0, -1, 1.5, Number.NaN]) expect(() => new MemoryThrottleStore({ maxKeys })).toThrow(/maxKeys/)
  })
})
