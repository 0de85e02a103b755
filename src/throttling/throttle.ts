// The contract lives in the core (the pipeline consults it); re-exported beside the built-in throttles.
export type { Throttle, ThrottleDecision } from '../core/throttle.js'
