// Type-aware rules an async engine needs: a forgotten await or a promise passed where a callback
// is expected loses errors silently; a non-exhaustive switch over a union hides a new case.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'release', 'src-renderer/dist', '**/*.js', '!eslint.config.js'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // The UI's API types are inferred from the server's zod schemas; a value import would pull
    // server code (zod, the column registry, node modules) into the browser bundle.
    files: ['src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/src-server/**'], allowTypeImports: true, message: 'The UI may import only types from src-server (import type).' }] },
      ],
    },
  },
);
