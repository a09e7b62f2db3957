#!/usr/bin/env node
// The `leadnet` command: runs src/cli/main.ts through tsx, with the project's tsconfig (decorators)
// whatever the working directory.
const path = require('node:path');

process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '..', 'tsconfig.json');
require('tsx/cjs/api').register();
require('../src/cli/main.ts')
  .run(process.argv)
  .catch((e) => {
    // One line without SQL, as every command's errors.
    console.error(`leadnet: ${require('../src/cli/runtime.ts').internalMessage(e)}`);
    process.exitCode = 1;
  })
  // Exit explicitly: open handles (a database pool being closed) must not keep the command alive.
  .finally(() => process.exit(process.exitCode ?? 0));
