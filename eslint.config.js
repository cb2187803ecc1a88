// Lint config. Besides the usual rules it enforces the layer map in DESIGN.md:
// each folder under src/ may import only from the layers below it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// stacks (apply) sits on slots; setup and doctor are host-side tools the CLI runs without a
// server (first-run provisioning and updates, a preflight check), so the CLI may import them;
// doctor reads what setup installed (the update layout), so it sits above it.
const LAYERS = ['protocol', 'config', 'activity', 'events', 'host', 'auth', 'engines', 'models', 'slots', 'dispatch', 'stacks', 'setup', 'doctor', 'server', 'cli'];

// Layers that sit beside the one before them rather than above it: events is a peer of
// activity (DESIGN.md, "Where wave 2 goes"), so it may import only protocol and config.
const BESIDE = { events: ['activity'] };

function layerRule(layer) {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1).concat(['bin', 'web'], BESIDE[layer] ?? []);
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
