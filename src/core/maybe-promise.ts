/**
 * A value, or a promise of it: what a step returns when it answers synchronously in the
 * common case (a permission, a memory throttle, a cache hit) and asynchronously otherwise,
 * so the synchronous case costs no promise. `await` reads both.
 */
export type MaybePromise<T> = T | Promise<T>

/**
 * Whether `value` is the promise of a `MaybePromise` (the one place that asks): what your
 * adapter uses to write a view's or the policies' synchronous answer at once (`view.handle`,
 * `Policies.run`), making no promise of its own, and to wait only for a promise.
 *
 * @example
 * const answer = view.handle(request)
 * return isPromise(answer) ? answer.then(send) : send(answer)
 */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise
}

/**
 * `next(value, …state)` now when `value` is not a promise, else once it resolves. The state
 * travels as arguments so that, with a `next` declared once (not a closure made per call), a
 * synchronous value costs no allocation: only a promise is chained.
 */
export function thenMaybe<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R>
export function thenMaybe<T, R, A>(value: MaybePromise<T>, next: (value: T, a: A) => MaybePromise<R>, a: A): MaybePromise<R>
export function thenMaybe<T, R, A, B>(value: MaybePromise<T>, next: (value: T, a: A, b: B) => MaybePromise<R>, a: A, b: B): MaybePromise<R>
export function thenMaybe<T, R, A, B, C>(value: MaybePromise<T>, next: (value: T, a: A, b: B, c: C) => MaybePromise<R>, a: A, b: B, c: C): MaybePromise<R>
export function thenMaybe<T, R, A, B, C>(value: MaybePromise<T>, next: (value: T, a?: A, b?: B, c?: C) => MaybePromise<R>, a?: A, b?: B, c?: C): MaybePromise<R> {
  return isPromise(value) ? value.then((resolved: T) => next(resolved, a, b, c)) : next(value, a, b, c)
}

/** `value` as a promise: itself when it is one, else a resolved one (for an API that promises). */
export function promiseOf<T>(value: MaybePromise<T>): Promise<T> {
  return isPromise(value) ? value : Promise.resolve(value)
}
