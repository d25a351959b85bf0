// Runs only the protocol tests without the repository's global setup (which builds dist/ for CLI
// tests): the protocol codec is pure and needs no build. `npx vitest run -c test/protocol/vitest.protocol.config.ts`
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/protocol/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
