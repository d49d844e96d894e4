#!/usr/bin/env node
// CommonJS (bin/package.json), like the bundle it runs: a command starts without Node's ES module loader.
require('../dist/netpolicy.js').runFromCommandLine();
