#!/usr/bin/env node
// Entry point of the sandbox agent (data plane). Runs the build output; configuration is by environment (--help).
// CommonJS on purpose (issue 19, item 8): the bundle is CommonJS, and an ES-module entry that import()s it loads
// Node's ES-module loader on top (≈ 9 MB of idle RSS and ≈ 30 ms of start on Node 20). The image's ENTRYPOINT
// runs the bundle itself; this file is for `npx sandbox-agent` and the npm package.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'sandbox-agent', 'main.js');
if (!existsSync(main)) {
  process.stderr.write('sandbox-agent is not built: run npm run build\n');
  process.exit(1);
}
require(main);
