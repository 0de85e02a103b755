import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bin/**', 'coverage/**', 'bench/.callgrind/**', 'tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The core never imports a framework (design.md): only adapters may.
    files: ['src/core/**', 'src/authentication/**', 'src/permissions/**', 'src/throttling/**', 'src/pagination/**', 'src/stores/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', 'express', 'hono', 'node:http', '*/adapters/*'] }],
    },
  },
  // Layering: the core depends on nothing above it. Features (schemes, permissions, throttles,
  // pagination, views), stores and adapters import the core, never the other way round. The
  // same rule holds one folder down (src/core/request/, src/core/html/).
  // The adapters are built from the public adapter kit only (issue 46): the root entry,
  // drf-gatehouse/http and their own folder, so an adapter of your own has the same tools.
  // test/docs/architecture.test.ts checks the same rule.
  {
    files: ['src/adapters/*/*.ts'],
    ignores: ['src/adapters/*/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^\\.\\./(?!\\.\\./(http/)?index\\.js$)', message: 'An adapter imports only the root entry (../../index.js), the adapter kit (../../http/index.js) and its own folder.' }] },
      ],
    },
  },
  ...coreLayering(['src/core/*.ts'], '../'),
  ...coreLayering(['src/core/*/**/*.ts'], '../../'),
)

/**
 * The core's import rule for files `up` below src/: no framework, nothing outside src/core; its
 * unit tests may also take the shared test helpers (test/helpers/), and nothing else from above.
 */
function coreLayering(files, up) {
  const escapedUp = up.replaceAll('.', '\\.')
  const rule = (outside) => ({
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ['fastify', 'express', 'hono', 'node:http', '@hono/*'], message: 'The core never imports a framework.' },
          { regex: `^${escapedUp}(?!${outside})`, message: 'src/core imports nothing outside src/core: move the contract into the core instead.' },
        ],
      },
    ],
  })
  const tests = files.map((glob) => glob.replace(/\.ts$/, '.test.ts'))
  return [
    { files, ignores: tests, rules: rule('core/') },
    { files: tests, rules: rule('core/|\\.\\./test/helpers/') },
  ]
}
