/**
 * `drf-gatehouse/testing`: the contracts gatehouse's stores are tested against, for your own
 * store to prove itself. Pass your test runner's `describe` and `it` (Vitest, Jest, Mocha,
 * `node:test`): the suites assert with `node:assert/strict` and import no runner.
 *
 * @example
 * import { describe, it } from 'vitest'
 * import { runTokenStoreSuite } from 'drf-gatehouse/testing'
 *
 * runTokenStoreSuite({ describe, it, create: () => new MyTokenStore(db), createUser: () => makeUser(db) })
 */
export type { TestApi } from './test-api.js'
export { runUserStoreSuite } from './user-store-suite.js'
export { runTokenStoreSuite } from './token-store-suite.js'
export { runSessionStoreSuite } from './session-store-suite.js'
export { runThrottleStoreSuite, type ThrottleStoreSuiteOptions } from './throttle-store-suite.js'
export { runJwtBlacklistStoreSuite } from './jwt-blacklist-store-suite.js'
export { runReservingThrottleStoreSuite } from './reserving-throttle-store-suite.js'
