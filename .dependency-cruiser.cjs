// The direction of pagewise's packages and of the tiers inside the core, checked in `npm test`
// (npm run check:deps). Packages import each other by name; the `@pagewise/source` condition resolves a
// name to its sources, so these rules see through package boundaries.
//
// Packages, each allowed only the ones below it:
//   pagewise (core)
//   @pagewise/documents, @pagewise/sqlite, @pagewise/postgres, @pagewise/adk, @pagewise/openai-agents,
//   @pagewise/langchain, @pagewise/mastra → pagewise
//   @pagewise/lab → pagewise, documents, sqlite
//   @pagewise/distributed → pagewise, lab
//   @pagewise/inspect → pagewise, lab, sqlite
//   @pagewise/cli → any
// Tiers inside the core (a tier imports only tiers before it):
//   errors, util, text → tokens → session, models → context → agents → paging, sources, compression, telemetry
//   → adapters (AI SDK) and the entry files.
const PKG = (name) => `^packages/${name}/`;
const allowed = {
  pagewise: ['pagewise'],
  documents: ['pagewise', 'documents'],
  sqlite: ['pagewise', 'sqlite'],
  postgres: ['pagewise', 'postgres'],
  adk: ['pagewise', 'adk'],
  'openai-agents': ['pagewise', 'openai-agents'],
  langchain: ['pagewise', 'langchain'],
  mastra: ['pagewise', 'mastra'],
  lab: ['pagewise', 'documents', 'sqlite', 'lab'],
  distributed: ['pagewise', 'lab', 'distributed'],
  inspect: ['pagewise', 'lab', 'sqlite', 'inspect'],
};
const packageRules = Object.entries(allowed).map(([name, ok]) => ({
  name: `package-${name}-imports-above-it`,
  comment: `${name} may import only: ${ok.join(', ')}.`,
  severity: 'error',
  from: { path: PKG(name), pathNot: '\\.(test|contract)\\.ts$' },
  to: { path: '^packages/', pathNot: `^packages/(${ok.join('|')})/` },
}));

const CORE = 'packages/pagewise/src';
const tiers = [
  ['errors', `^${CORE}/(errors\\.ts|util/|text/)`],
  ['tokens', `^${CORE}/tokens/`],
  ['session-models', `^${CORE}/(session|models)/`],
  ['context', `^${CORE}/context/`],
  ['agents', `^${CORE}/agents/`],
  ['features', `^${CORE}/(paging|sources|compression|telemetry)/`],
];
const tierRules = tiers.slice(0, -1).map(([name, from], index) => ({
  name: `core-tier-${name}-imports-a-later-tier`,
  comment: `The core's ${name} tier may import only its own and earlier tiers.`,
  severity: 'error',
  from: { path: from, pathNot: '\\.(test|contract)\\.ts$' },
  to: {
    path:
      tiers
        .slice(index + 1)
        .map(([, p]) => p)
        .join('|') +
      `|^${CORE}/adapters/|^${CORE}/(index|internal|testing|ai-sdk|paging|compression|sources|context|cost|telemetry|store-kit|adapter-kit|extractive)\\.ts$`,
  },
}));

module.exports = {
  forbidden: [
    ...packageRules,
    ...tierRules,
    {
      name: 'relative-import-into-another-package',
      comment: 'Outside tests, a package reaches another only by its name, never by a relative path.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/', pathNot: '\\.(test|contract)\\.ts$' },
      to: { path: '^packages/', pathNot: '^packages/$1/', dependencyTypes: ['local'] },
    },
    {
      name: 'core-loads-heavy-package',
      comment: 'import("pagewise") must not load a native module, a server client or a chart library.',
      severity: 'error',
      from: { path: '^packages/pagewise/src/index\\.ts$' },
      to: {
        path: 'node_modules/(pg|pg-[a-z-]+|bullmq|ioredis|vega|vega-[a-z-]+|better-sqlite3|hono|@hono|exceljs|mammoth|unpdf|@google/adk|@openai/agents|langchain|@langchain|@mastra)/',
        reachable: true,
      },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make load order and layering unreadable.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // A dynamic import() loads on first use, not with its importer (the document readers, the CLI's
    // commands), so only static imports make up the layers and what an entry loads.
    exclude: { path: ['\\.test\\.ts$', '/dist/'], dynamic: true },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@pagewise/source', 'import', 'require', 'node', 'default'],
    },
  },
};
