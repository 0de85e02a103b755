import { describe, expect, it } from 'vitest'
import { MemoryThrottleStore } from '../../src/throttling/memory-throttle-store.js'
import { runThrottleStoreSuite } from './throttle-store-suite.js'

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
})
