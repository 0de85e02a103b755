/**
 * Loaded into a server process with `--import`: on SIGUSR2 it prints `async hooks: on` or
 * `async hooks: off`. With no async hook enabled Node gives promises no async id, and a
 * promise reaction runs with `executionAsyncId()` 0; once any hook is enabled (an
 * `AsyncLocalStorage` that ran, `async_hooks.createHook().enable()`), every promise gets an
 * id of its own and its reaction runs in that one.
 */
import { executionAsyncId } from 'node:async_hooks'

async function hooksEnabled(): Promise<boolean> {
  const around = executionAsyncId()
  const inside = await Promise.resolve().then(() => executionAsyncId())
  return inside !== 0 && inside !== around
}

process.on('SIGUSR2', () => {
  void hooksEnabled().then((on) => {
    process.stdout.write(`async hooks: ${on ? 'on' : 'off'}\n`)
  })
})
