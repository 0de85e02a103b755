/**
 * Loaded into a benchmark server with `--import` (side-by-side.ts `--alloc`): SIGUSR2 opens a
 * measuring window, the next SIGUSR2 closes it and prints one line
 * `alloc-probe {"bytes":…,"promises":…}`: bytes allocated on the JavaScript heap in the window
 * (the heap's growth plus what every collection freed, from `v8.GCProfiler`, so load and the
 * timing of scavenges do not move it) and promises created (a V8 promise hook, on only inside
 * a window, and only when GH_PROBE_PROMISES=1: it slows every promise).
 */
import { GCProfiler, getHeapStatistics, promiseHooks } from 'node:v8'

let window: { profiler: GCProfiler; heap: number; promises: number; stopHook: (() => void) | null } | null = null

process.on('SIGUSR2', () => {
  if (window === null) {
    const profiler = new GCProfiler()
    const opened = { profiler, heap: 0, promises: 0, stopHook: null as (() => void) | null }
    if (process.env['GH_PROBE_PROMISES'] === '1') {
      opened.stopHook = promiseHooks.onInit((): void => {
        opened.promises++
      }) as () => void
    }
    profiler.start()
    opened.heap = getHeapStatistics().used_heap_size
    window = opened
    process.stdout.write('alloc-probe open\n')
    return
  }
  const closing = window
  window = null
  const heap = getHeapStatistics().used_heap_size
  closing.stopHook?.()
  let freed = 0
  for (const gc of closing.profiler.stop()?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
  process.stdout.write(`alloc-probe ${JSON.stringify({ bytes: heap - closing.heap + freed, promises: closing.promises })}\n`)
})
