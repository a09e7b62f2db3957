#!/usr/bin/env node
// `npm run build`: compiles the service to JavaScript in dist/ (tsconfig.build.json) and copies the files
// it reads at run time: the REST operation documents (*.rest.graphql, next to their modules) and schema/
// (schema.graphql, openapi.json). Production runs `node dist/src/main.js` (`npm run start:prod`).
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.join(__dirname, '..');
const out = path.join(root, 'dist');

fs.rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});

function copyDocuments(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) copyDocuments(file);
    else if (entry.name.endsWith('.graphql')) {
      const target = path.join(out, path.relative(root, file));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    }
  }
}
copyDocuments(path.join(root, 'src'));
fs.cpSync(path.join(root, 'schema'), path.join(out, 'schema'), { recursive: true });
console.log(`built ${path.relative(process.cwd(), out) || '.'}: start it with npm run start:prod (node dist/src/main.js)`);
