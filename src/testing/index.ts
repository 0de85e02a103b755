/**
 * `gatehouse/testing`: the contracts gatehouse's stores are tested against, for your own
 * store to prove itself. Pass your test runner's `describe` and `it` (Vitest, Jest, Mocha,
 * `node:test`): the suites assert with `node:assert/strict` and import no runner.
 *
 * @example
 * import { describe, it } from 'vitest'
 * import { runTokenStoreSuite } from 'gatehouse/testing'
 *
 * runTokenStoreSuite({ describe, it, create: () => new MyTokenStore(db), createUser: () => makeUser(db) })
 */
export type { TestApi, Factory } from './test-api.js'
export { runUserStoreSuite, type UserStoreSuiteOptions } from './user-store-suite.js'
export { runTokenStoreSuite, type TokenStoreSuiteOptions } from './token-store-suite.js'
export { runSessionStoreSuite, type SessionStoreSuiteOptions } from './session-store-suite.js'
export { runThrottleStoreSuite, type ThrottleStoreSuiteOptions } from './throttle-store-suite.js'
export { runJwtBlacklistStoreSuite, type JwtBlacklistStoreSuiteOptions } from './jwt-blacklist-store-suite.js'
export { runReservingThrottleStoreSuite, type ReservingThrottleStoreSuiteOptions } from './reserving-throttle-store-suite.js'
