import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bin/**', 'coverage/**'] },
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
  {
    // Layering: the core depends on nothing above it. Features (schemes, permissions, throttles,
    // pagination, views), stores and adapters import the core, never the other way round.
    files: ['src/core/*.ts'],
    ignores: ['src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['fastify', 'express', 'hono', 'node:http', '@hono/*'], message: 'The core never imports a framework.' },
            {
              group: ['../*', '!../core/*'],
              message: 'src/core imports nothing outside src/core: move the contract into the core instead.',
            },
          ],
        },
      ],
    },
  },
  {
    // The same rule one folder down (src/core/request/: body, JSON, Python-compat and URL parsing, negotiation).
    files: ['src/core/*/**/*.ts'],
    ignores: ['src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['fastify', 'express', 'hono', 'node:http', '@hono/*'], message: 'The core never imports a framework.' },
            {
              group: ['../../*', '!../../core/*'],
              message: 'src/core imports nothing outside src/core: move the contract into the core instead.',
            },
          ],
        },
      ],
    },
  },
)
