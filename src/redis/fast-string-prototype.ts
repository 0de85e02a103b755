/**
 * ioredis (its RESP3 `class VerbatimString extends String`) makes `String.prototype` the
 * prototype of a new object when it loads, and V8 then turns `String.prototype` into a
 * dictionary ("setup mode", until an inline cache makes it fast again). The inline caches of
 * string primitives never do, so from then on every string method call in the process
 * (`charCodeAt`, `slice`, `toLowerCase`…, in gatehouse, the framework and Node's HTTP code
 * alike) was a generic property lookup instead of a constant: about 200 of them per request.
 *
 * A load through a `String` object, from a function that has its feedback vector (V8 allocates
 * one after a few calls), makes V8 optimise the prototype chain of that object, and
 * `String.prototype` gets fast properties back. Nothing is changed on the prototype itself.
 */
export function restoreFastStringPrototype(): void {
  const wrapper = new String('')
  for (let i = 0; i < CALLS; i++) methodOf(wrapper)
}

/** More calls than V8 needs to give a function its feedback vector (8 in Node 20 to 24). */
const CALLS = 32

function methodOf(text: object): unknown {
  return (text as { charCodeAt?: unknown }).charCodeAt
}
