#!/usr/bin/env node
// The `rlx` command: runs the compiled command line (npm install builds it; see package.json).
import '../out/cli/run.js';
