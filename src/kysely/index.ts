export type {
  AuthDatabase,
  Timestamp,
  UsersDatabase,
  TokensDatabase,
  SessionsDatabase,
  TokenSessionDatabase,
  NamedTokensDatabase,
} from './schema.js'
export { toDate } from './schema.js'
export { openDatabase, parseDatabaseUrl, createDialect } from './database.js'
export { withStatementTimeout } from './statement-timeout.js'
export type { Database, OpenDatabaseOptions } from './database.js'
export type { DialectName } from './dialect-name.js'
export { authMigrations, migrate, syncSerial } from './migrations.js'
export type { Migration } from './migration-runner.js'
export { KyselyUserStore } from './kysely-user-store.js'
export {
  DEFAULT_USER_TABLE,
  DJANGO_USER_COLUMNS,
  type UserTable,
  type UserTableOf,
} from './user-table.js'
export { KyselyJwtBlacklistStore, type JwtBlacklistDatabase } from './kysely-jwt-blacklist-store.js'
export { jwtBlacklistMigrations } from './jwt-blacklist-migrations.js'
export { KyselyTokenStore, tokenRow } from './kysely-token-store.js'
export {
  KyselyNamedTokenStore,
} from './kysely-named-token-store.js'
export { KyselySessionStore } from './kysely-session-store.js'
export { KyselyThrottleStore } from './kysely-throttle-store.js'
export {
  KyselyPageSource,
  type ColumnSpec,
} from './kysely-page-source.js'
export { prepareQuery } from './prepared-query.js'
export { preparePageSource, type OptionalQueryParameters } from './prepared-page-source.js'
export { StaleStatementError } from './direct-driver.js'
export type { CliConfig, CliHookContext } from './cli-config-types.js'
