import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Compiles src/ to dist/ and bench/ to dist/bench/ once, before any end-to-end file runs, so the
 * tests that spawn the real CLI or the benchmark harness run the current code, and no two test
 * files write dist/ at the same time (files run in parallel).
 *
 * `--noCheck` only emits: `npm test` typechecks the whole tree separately, and a half-finished
 * folder of one engineer must not stop another's tests. A failure to emit still stops the run.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  for (const project of ['tsconfig.build.json', 'tsconfig.bench.json']) {
    const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project, '--noCheck'], { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`global-setup: tsc -p ${project} failed:\n${result.stdout.slice(0, 4000)}${result.stderr.slice(0, 2000)}`);
  }
}
