export type {
  AuthDatabase,
  UsersTable,
  TokensTable,
  SessionsTable,
  Timestamp,
  UsersDatabase,
  TokensDatabase,
  SessionsDatabase,
  TokenSessionDatabase,
  NamedTokensTable,
  NamedTokensDatabase,
} from './schema.js'
export { toDate } from './schema.js'
export { openDatabase, parseDatabaseUrl, createDialect, DEFAULT_SQLITE_PATH } from './database.js'
export { withStatementTimeout } from './statement-timeout.js'
export type { Database, DatabaseTarget, OpenDatabaseOptions } from './database.js'
export type { DialectName } from './dialect-name.js'
export type { SqliteDriverName } from './sqlite-connection.js'
export { authMigrations, migrate, syncSerial, type AuthMigrationOptions } from './migrations.js'
export type { Migration, MigrationResult, MigrationResultSet } from './migration-runner.js'
export { KyselyUserStore, type KyselyUserStoreOptions, type RequiredUserTable } from './kysely-user-store.js'
export {
  DEFAULT_USER_TABLE,
  DJANGO_USER_COLUMNS,
  type UserTable,
  type UserTableOf,
  type UserColumns,
  type UserIdType,
} from './user-table.js'
export { KyselyJwtBlacklistStore, type KyselyJwtBlacklistStoreOptions, type JwtBlacklistDatabase, type JwtTokensTable } from './kysely-jwt-blacklist-store.js'
export { jwtBlacklistMigrations } from './jwt-blacklist-migrations.js'
export { KyselyTokenStore, tokenRow, type KyselyTokenStoreOptions } from './kysely-token-store.js'
export {
  KyselyNamedTokenStore,
  DEFAULT_NAMED_TOKEN_PREFIX,
  type KyselyNamedTokenStoreOptions,
} from './kysely-named-token-store.js'
export { KyselySessionStore, type KyselySessionStoreOptions } from './kysely-session-store.js'
export {
  KyselyPageSource,
  type KyselyPageSourceOptions,
  type QueryRunner,
  type ColumnSpec,
  type ColumnKind,
  type CountableQuery,
} from './kysely-page-source.js'
export { prepareQuery, parameterRef, type PreparedQuery, type QueryParameters, type Compilable } from './prepared-query.js'
export { preparePageSource, type PreparedPageSourceOptions, type OptionalQueryParameters } from './prepared-page-source.js'
export { StaleStatementError } from './direct-driver.js'
export type { CliConfig, CliHookContext } from './cli-config-types.js'
