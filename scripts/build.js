#!/usr/bin/env node
// `npm run build`: compiles the service to JavaScript in dist/ (tsconfig.build.json) and adds every file it
// reads at run time, so `npm run start:prod` serves all that `npm start` serves:
// - the REST operation documents (*.rest.graphql, next to their modules) and schema/ (schema.graphql,
//   openapi.json);
// - the pages' static files (any `public/` directory under src/: GraphiQL's and the API reference's
//   start-up scripts, GraphiQL's icon);
// - the store finder's browser script, bundled once here (dist/src/locator-widget/widget.bundle.js):
//   dist/ has no browser sources to bundle at run time.
// Production runs `node dist/src/main.js` (`npm run start:prod`).
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.join(__dirname, '..');
const out = path.join(root, 'dist');

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });

  const copy = (file) => {
    const target = path.join(out, path.relative(root, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  };
  const copyRuntimeFiles = (dir, inPublic = false) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) copyRuntimeFiles(file, inPublic || entry.name === 'public');
      else if (inPublic || entry.name.endsWith('.graphql')) copy(file);
    }
  };
  copyRuntimeFiles(path.join(root, 'src'));
  fs.cpSync(path.join(root, 'schema'), path.join(out, 'schema'), { recursive: true });

  // The same bundling as `npm start` (src/locator-widget/bundle.ts, compiled above), from the sources.
  const { bundleWidget } = require(path.join(out, 'src', 'locator-widget', 'bundle.js'));
  const bundle = await bundleWidget(path.join(root, 'src', 'locator-widget', 'client'));
  fs.writeFileSync(path.join(out, 'src', 'locator-widget', 'widget.bundle.js'), bundle);

  console.log(`built ${path.relative(process.cwd(), out) || '.'}: start it with npm run start:prod (node dist/src/main.js)`);
}

main().catch((e) => {
  console.error(`build failed: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
