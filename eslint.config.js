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
)
