/**
 * The load-independent figures of the benchmark scripts, measured one way everywhere: CPU,
 * bytes allocated and promises created per call of a function, over sequential calls.
 *
 * Bytes are the JavaScript heap's growth plus what every collection in between freed
 * (`v8.GCProfiler` reports each one's heap before and after), so neither load nor when a
 * scavenge happens to run moves them. Promises are counted by a V8 promise hook, on only while
 * counting: it slows every promise.
 */
import { GCProfiler, getHeapStatistics, promiseHooks } from 'node:v8'

/** A window counting bytes allocated on the heap from now until `close()`. */
export function openHeapWindow(): { close(): number } {
  const profiler = new GCProfiler()
  profiler.start()
  const before = getHeapStatistics().used_heap_size
  return {
    close(): number {
      const after = getHeapStatistics().used_heap_size
      let freed = 0
      for (const gc of profiler.stop()?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
      return after - before + freed
    },
  }
}

/** CPU µs per call of `fn`, over `count` sequential calls. */
export async function cpuPerCall(count: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < count; i++) await fn()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / count
}

/** Bytes allocated on the heap per call of `fn`, over `count` sequential calls. */
export async function bytesPerCall(count: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const window = openHeapWindow()
  for (let i = 0; i < count; i++) await fn()
  return window.close() / count
}

/**
 * Promises created per call of `fn`, over `count` sequential calls. The loop's own `await` of
 * each call's result makes one promise per call when the call returns none. `sites`, when
 * given, counts where each promise was made (the top frames of its creation's stack).
 */
export async function promisesPerCall(count: number, fn: () => Promise<unknown> | unknown, sites?: Map<string, number>): Promise<number> {
  let created = 0
  const stop = promiseHooks.onInit(() => {
    created++
    if (sites === undefined) return
    const stack = (new Error().stack ?? '').split('\n').slice(2, 5).map((line) => line.trim().replace(/^at /, '')).join(' < ')
    sites.set(stack, (sites.get(stack) ?? 0) + 1)
  })
  try {
    for (let i = 0; i < count; i++) await fn()
  } finally {
    stop()
  }
  return created / count
}
