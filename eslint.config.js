// Lint config. Besides the usual rules it enforces the layer map in DESIGN.md:
// each folder under src/ may import only from the layers below it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const LAYERS = ['protocol', 'config', 'activity', 'host', 'engines', 'models', 'slots', 'dispatch', 'server', 'cli'];

function layerRule(layer) {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1).concat(['bin', 'web']);
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: above.map((name) => ({
          group: [`**/${name}/*`, `../${name}/*`, `./${name}/*`],
          message: `src/${layer} sits below src/${name}; arrows point down (DESIGN.md, Architecture).`,
        })),
      }],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.svc-home/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/server/*', '**/slots/*', '**/dispatch/*', '**/engines/*', '**/models/*', '**/host/*'], message: 'The CLI is a thin layer over the HTTP client; it must not import server-side code.' }],
      }],
    },
  },
  ...LAYERS.filter((l) => l !== 'cli').map(layerRule),
);
