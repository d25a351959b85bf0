import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../dist/server/old-generation.js', import.meta.url));

/**
 * In a fresh node process (the test's own heap keeps its flags): optionally applies the server's
 * setting, keeps a live set of about 40 MB, then makes objects that live long enough to be
 * promoted and then die, as transfers and push batches do; reports the largest old space seen.
 */
function largestOldSpace(nodeArgs: string[], apply: boolean): { mb: number; percent: number | null } {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { capOldGenerationGrowth } = await import(${JSON.stringify(MODULE)});
    const percent = ${apply} ? capOldGenerationGrowth() ?? null : null;
    const old = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
    const live = [];
    for (let i = 0; i < 400000; i++) live.push({ i, s: 'x'.repeat(50) + i });
    const ring = new Array(200000);
    let largest = 0;
    for (let round = 0; round < 1500; round++) {
      for (let j = 0; j < 2000; j++) ring[(round * 2000 + j) % ring.length] = { round, j, pad: [j, j, j, j, j, j, j, j] };
      if (round % 10 === 0) largest = Math.max(largest, old());
    }
    console.log(JSON.stringify({ mb: Math.round(largest / 1e6), percent, live: live.length }));
  `;
  const r = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { mb: number; percent: number | null };
}

describe("the server's old generation", () => {
  it('grows to about twice what it keeps alive, where V8 alone lets it grow much further', () => {
    const capped = largestOldSpace([], true);
    const v8 = largestOldSpace([], false);
    expect(capped.percent).toBe(100);
    expect(capped.mb).toBeLessThan(0.7 * v8.mb);
  });

  it('keeps a growing factor given on the node command line', () => {
    const { mb, percent } = largestOldSpace(['--heap_growing_percent=300'], true);
    const capped = largestOldSpace([], true);
    expect(percent).toBeNull();
    expect(mb).toBeGreaterThan(capped.mb / 0.7);
  });
});
