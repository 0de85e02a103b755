/**
 * A value, or a promise of it: what a step returns when it answers synchronously in the
 * common case (a permission, a memory throttle, a cache hit) and asynchronously otherwise,
 * so the synchronous case costs no promise. `await` reads both.
 */
export type MaybePromise<T> = T | Promise<T>

/** `next(value)` now when `value` is not a promise, else once it resolves. */
export function thenMaybe<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value)
}
