import { defineConfig } from 'vitest/config';

// Tests run the packages from their sources: the `@pagewise/source` export condition maps each package name
// to its `src/`. Child processes the tests start (`node --import tsx …`) resolve the same way through
// NODE_OPTIONS; the packaging test clears it to run the built packages as a user would.
const SOURCE = '@pagewise/source';
if (!(process.env.NODE_OPTIONS ?? '').includes(`--conditions=${SOURCE}`))
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--conditions=${SOURCE}`].filter(Boolean).join(' ');

export default defineConfig({
  resolve: { conditions: [SOURCE] },
  ssr: { resolve: { conditions: [SOURCE] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Fails the run when a test touched the default store (see the file).
    globalSetup: ['test/global-setup.ts'],
  },
});
