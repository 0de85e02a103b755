// The contract lives in the core (the pipeline calls it); re-exported here beside the built-in schemes.
export { schemeName, type Authenticated, type AuthenticationScheme } from '../core/authentication-scheme.js'
