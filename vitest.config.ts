import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { splitSuites } from './test/helpers/suites.js';

// Two projects (docs/decisions/0051-test-suite-split.md): `unit` runs in the test process only;
// `e2e` starts processes (the CLI against dist/, database servers, chromium, haproxy...) or needs
// the PostgreSQL/MariaDB test servers. `npm run test:unit` runs the first, `npm test` both.
const { unit, e2e } = splitSuites(fileURLToPath(new URL('.', import.meta.url)));

// End-to-end files mostly wait (for child processes, sockets, databases), so more files run at once
// than there are cores; every file works in its own temporary directories, ports and schemas.
// VITEST_MAX_WORKERS or --maxWorkers overrides it.
const workers = Math.min(8, Math.max(4, availableParallelism() * 2));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      // In-process files share their worker's module cache (isolate: false): each file no longer
      // imports src/ afresh, which was two thirds of this project's CPU (test:unit 75 s -> 20 s).
      // A unit test must therefore leave process-wide state as it found it, or reset it first
      // (the frame pool: framePool.release(); DEVELOPERS.md).
      { extends: true, test: { name: 'unit', include: unit, isolate: false } },
      // Child-process hosts run the compiled dist/, so this project's global setup builds it first.
      // Its files share modules too (the harness and the src/ they import): 10% less CPU measured.
      { extends: true, test: { name: 'e2e', include: e2e, isolate: false, globalSetup: ['test/helpers/global-setup.ts'] } },
    ],
  },
});
