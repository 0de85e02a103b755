import type { KyselyPlugin } from 'kysely'

/**
 * A plugin that changes nothing. A Kysely instance with any plugin sends gatehouse's statements
 * through Kysely itself rather than the dialect's direct driver (`directDriverOf`), so Kysely's
 * `log` option sees every statement: the tests that count statements need that.
 */
export const throughKysely: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => args.result,
}
