/**
 * The two functions of a test runner the contract suites need. Vitest's, Jest's, Mocha's
 * and `node:test`'s `describe` and `it` all fit, so gatehouse imports no runner itself.
 */
export interface TestApi {
  /** Groups the suite's cases under one name. */
  readonly describe: (name: string, body: () => void) => unknown
  /** One case; it fails when the returned promise rejects (the suites assert with `node:assert/strict`). */
  readonly it: (name: string, body: () => Promise<void>) => unknown
}

/** A store, or a promise of one, made fresh (or shared) for each case. */
export type Factory<T> = () => T | Promise<T>

/** A deterministic pseudo-random sequence (mulberry32), so a failing case fails the same way every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** A name no earlier case (or earlier run against the same database) has used. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`
}
