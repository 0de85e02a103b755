/**
 * Loaded into a benchmark server with `--import` (side-by-side.ts `--alloc`): SIGUSR2 opens a
 * measuring window, the next SIGUSR2 closes it and prints one line
 * `alloc-probe {"bytes":…,"promises":…}`: bytes allocated on the JavaScript heap in the window
 * (the heap's growth plus what every collection freed, from `v8.GCProfiler`, so load and the
 * timing of scavenges do not move it) and promises created (a V8 promise hook, on only inside
 * a window, and only when GH_PROBE_PROMISES=1: it slows every promise).
 */
import { promiseHooks } from 'node:v8'
import { openHeapWindow } from './per-call.js'

let window: { heap: { close(): number }; promises: { count: number; stop: (() => void) | null } } | null = null

process.on('SIGUSR2', () => {
  if (window === null) {
    const promises = { count: 0, stop: null as (() => void) | null }
    if (process.env['GH_PROBE_PROMISES'] === '1') {
      promises.stop = promiseHooks.onInit((): void => {
        promises.count++
      }) as () => void
    }
    window = { heap: openHeapWindow(), promises }
    process.stdout.write('alloc-probe open\n')
    return
  }
  const closing = window
  window = null
  const bytes = closing.heap.close()
  closing.promises.stop?.()
  process.stdout.write(`alloc-probe ${JSON.stringify({ bytes, promises: closing.promises.count })}\n`)
})
