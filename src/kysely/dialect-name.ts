/** Which SQL engine a `DATABASE_URL` points at. */
export type DialectName = 'sqlite' | 'postgres'
