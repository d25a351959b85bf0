import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Compile src/ to dist/ once so tests that spawn the real CLI run the current code.
 * Type errors do not stop the build here (tsc still emits): `npm test` typechecks separately,
 * and a half-finished folder of one engineer must not stop another's tests.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`global-setup: tsc reported errors (dist/ was still emitted):\n${result.stdout.slice(0, 4000)}\n`);
  }
}
