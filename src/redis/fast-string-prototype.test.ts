/**
 * ioredis makes `String.prototype` a dictionary when it loads (its `class VerbatimString extends
 * String`), which turned every string method call of the process into a generic lookup; loading
 * gatehouse's Redis client makes V8 give it fast properties back. V8's own answer is read in a
 * child process started with `--allow-natives-syntax` (`%HasFastProperties`).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/** Whether `String.prototype` has fast properties after importing `modules` in order, in a fresh process. */
function fastAfter(modules: readonly string[]): boolean {
  const script = [
    "const fast = new Function('o', 'return %HasFastProperties(o)')",
    ...modules.map((m) => `await import(${JSON.stringify(m)})`),
    'process.stdout.write(String(fast(String.prototype)))',
  ].join('\n')
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) })
  return out.trim() === 'true'
}

const client = fileURLToPath(new URL('./redis-client.ts', import.meta.url))

describe("String.prototype after ioredis loads", () => {
  it('is fast again once the Redis client module has loaded (ioredis first, as its import does)', () => {
    expect(fastAfter(['ioredis', client])).toBe(true)
  })

  it('is fast when the client module is what loads ioredis', () => {
    expect(fastAfter([client])).toBe(true)
  })
})
