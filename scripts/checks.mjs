#!/usr/bin/env node
// `npm test`'s checks before vitest: the typecheck and the lint (eslint, then the layer rule) run at
// the same time, each in its own process (each is single-threaded; the machines have 2 cores).
// Each one's output is printed whole when it ends, so the two never interleave; the exit status is
// the first failure's, 0 when both pass.
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => resolve({ script, code: 1, text: `${script}: ${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), text: Buffer.concat(out).toString() }));
  });
}

const results = await Promise.all(['typecheck', 'lint'].map(run));
for (const { script, code, text } of results) {
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  if (code !== 0) process.stderr.write(`npm test: ${script} failed (exit ${code})\n`);
}
process.exitCode = results.find((r) => r.code !== 0)?.code ?? 0;
