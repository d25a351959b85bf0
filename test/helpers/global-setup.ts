import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Compile src/ to dist/ once so tests that spawn the real CLI run the current code. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
