/** The cursor-signing secret of tests that build a CursorPagination or cursors by hand. */
export const TEST_SECRET = 'gatehouse-test-secret-0123456789'
