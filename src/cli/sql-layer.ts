/**
 * What the commands use of the SQL layer (the Kysely stores, the migrations, the database
 * opener, the Django import), in one module that `CommandKit.sql()` loads when a command runs,
 * never when the command line is built: `kysely` is an optional peer, so `drf-gatehouse --help`
 * must work without it, and a command that needs it says which package to install (`main.ts`).
 * Nothing else of `src/cli/` may import these modules other than as types.
 */
export { openDatabase, parseDatabaseUrl } from '../kysely/database.js'
export { jwtBlacklistMigrations } from '../kysely/jwt-blacklist-migrations.js'
export { KyselyJwtBlacklistStore } from '../kysely/kysely-jwt-blacklist-store.js'
export { KyselyNamedTokenStore } from '../kysely/kysely-named-token-store.js'
export { KyselySessionStore } from '../kysely/kysely-session-store.js'
export { KyselyTokenStore } from '../kysely/kysely-token-store.js'
export { KyselyUserStore } from '../kysely/kysely-user-store.js'
export { authMigrations, migrate } from '../kysely/migrations.js'
export { formatImportReport, importDjango, readDjangoDatabase } from './import-django.js'
