/**
 * The reference API's conformance suite on Cloudflare's runtime: the Worker entry
 * (examples/reference-api/worker.ts) bundled and served from workerd through Miniflare, on a
 * real D1 database with its throttles in a Durable Object (test/helpers/workerd-reference.ts),
 * answering the suite's requests over HTTP as the Node frameworks, Bun and Deno do.
 *
 *   npm run test:workerd
 *
 * The Worker serves the routes that run on the edge: identity and its schemes, token obtain,
 * CSRF, login and logout, named tokens, the throttled obtain and the article lists. The test
 * files that need a part it does not serve are left out below, with the reason printed at the
 * start of the run (not skipped: each is a file the Worker cannot answer).
 */
import { configDefaults, defineConfig } from 'vitest/config'
import base from './vitest.config.js'
import { printLeftOut } from './test/helpers/left-out.js'

/** Conformance files not run on the Worker, and why. */
const LEFT_OUT: Readonly<Record<string, string>> = {
  'test/conformance/html-pages.test.ts': 'the admin pages are Node-only (drf-gatehouse/admin through createGatehouse), not served by the Worker',
  'test/conformance/jwt.test.ts': 'the JWT routes are the jwt() feature of createGatehouse (Node); the Worker serves none, and the file compares with simplejwt in Python',
  'test/conformance/oauth2.test.ts': 'the OAuth 2.0 routes are the oauth2() feature of createGatehouse (Node), checked against an issuer the test serves on Node',
  'test/conformance/oauth2-answers.test.ts': 'the OAuth 2.0 routes are the oauth2() feature of createGatehouse (Node), checked against a provider the test serves on Node',
  'test/conformance/regex-search.test.ts': "PostgreSQL's regular expressions: D1 is SQLite",
}

printLeftOut('workerd', LEFT_OUT)

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    projects: [
      {
        extends: true,
        test: {
          name: 'workerd',
          include: ['test/conformance/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...Object.keys(LEFT_OUT)],
          env: { GATEHOUSE_TEST_FRAMEWORK: 'workerd' },
        },
      },
    ],
  },
})
