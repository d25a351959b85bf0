#!/usr/bin/env node
// Thin launcher: the compiled entry point lives in dist/ (`npm run build`, or `npm start`, makes it).
import('../dist/cli/password/main.js').catch((err) => {
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/password/main.js')) {
    process.stderr.write(`svc-password: not built yet: run 'npm run build' in ${new URL('..', import.meta.url).pathname}\n`);
    process.exit(1);
  }
  throw err;
});
