/**
 * The layering rule of docs/architecture.md, checked by `npm test` (test/architecture/dependencies.test.ts).
 * The lower folders and the root files under src/ do not import the feature modules (src/modules/): they
 * are handed the module list by the top (src/app.ts, src/main.ts, src/search-indexer.ts, src/cli/,
 * mikro-orm.config.ts, which builds the entity list for src/db/). The modules do not import the top.
 * Type-only imports count.
 */
const LOWER =
  '^src/(access|auth|db|graphql|rest|search|http|geo|observability|graphiql|home|locator-widget|outbox|types)/' +
  '|^src/(context|config|errors|limits|logger|safe-error|lifecycle|request-context|runtime)\\.ts$';
const TOP = '^src/(app|main|server|search-indexer)\\.ts$|^src/cli/|^mikro-orm\\.config\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lower-layers-import-no-modules',
      comment: 'A lower layer defines the type of what it needs from a module and is handed the list (src/modules/index.ts).',
      severity: 'error',
      from: { path: LOWER },
      to: { path: '^src/modules/' },
    },
    {
      name: 'nothing-imports-the-top',
      comment: 'The composition (src/app.ts, the entry points, the CLI) imports everything; nothing imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: TOP },
      to: { path: TOP },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules|^src/locator-widget/client/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
  },
};
