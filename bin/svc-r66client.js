#!/usr/bin/env node
// Thin launcher: the compiled entry point lives in dist/ (run `npm run build` first).
import "../dist/cli/r66client-main.js";
