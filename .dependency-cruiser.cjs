// The direction of the library's layers, checked in `npm test` (npm run check:deps). DESIGN.md explains it:
// the runtime core never reaches the benchmark, optimization, distribution, the CLI, a store backend, an
// adapter or the inspector; the root entry loads no native module, server client or chart library; no cycles.
const CORE = '^src/(agents|context|session|paging|compression|models|tokens|text|telemetry|errors\\.ts)';
const OUTER = '^src/(bench|scenarios|optimize|distributed|cli|stores|adapters|inspect)/';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-outer-layer',
      comment:
        'The runtime core must not depend on the benchmark, optimizer, queue, CLI, stores, adapters or inspector.',
      severity: 'error',
      from: { path: CORE, pathNot: '\\.test\\.ts$' },
      to: { path: OUTER },
    },
    {
      name: 'root-entry-loads-heavy-package',
      comment: 'import("pagewise") must not load a native module, a server client or a chart library.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: {
        path: 'node_modules/(pg|pg-[a-z-]+|bullmq|ioredis|vega|vega-[a-z-]+|better-sqlite3|hono|@hono|exceljs|mammoth|unpdf|@google/adk|@openai/agents)/',
        reachable: true,
      },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make load order and layering unreadable.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // A dynamic import() loads on first use, not with its importer (the document readers, the CLI's
    // commands), so only static imports make up the layers and what an entry loads.
    exclude: { path: '\\.test\\.ts$', dynamic: true },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
