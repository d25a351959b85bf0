import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../dist/server/young-generation.js', import.meta.url));

/**
 * In a fresh node process (the test's own heap keeps its flags): optionally applies the server's
 * setting, then allocates garbage with some survivors and reports each young generation size seen.
 */
function youngGenerationSizes(nodeArgs: string[], apply: boolean): { sizes: number[]; factor: number | null } {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { growYoungGenerationAtOnce } = await import(${JSON.stringify(MODULE)});
    const factor = ${apply} ? growYoungGenerationAtOnce() ?? null : null;
    const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const sizes = [size()];
    const keep = [];
    for (let i = 0; i < 300; i++) {
      for (let j = 0; j < 20000; j++) { const o = { j, a: [j, j] }; if (j % 10 === 0) keep.push(o); }
      if (keep.length > 60000) keep.splice(0, 30000);
      if (sizes[sizes.length - 1] !== size()) sizes.push(size());
    }
    console.log(JSON.stringify({ sizes, factor }));
  `;
  const r = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { sizes: number[]; factor: number | null };
}

/**
 * Sizes seen between the start and the maximum. The start commits one semi-space; the first
 * scavenge commits the second (twice the start) without growing anything: not counted.
 */
function steps(sizes: number[]): number[] {
  const [first, last] = [sizes[0] as number, sizes[sizes.length - 1] as number];
  return sizes.filter((s) => s > 2 * first && s < last);
}

describe("the server's young generation", () => {
  it('grows from its start size to its maximum in one step', () => {
    const { sizes, factor } = youngGenerationSizes([], true);
    expect(factor).toBe(16);
    expect(sizes[sizes.length - 1]).toBeGreaterThan(4 * (sizes[0] as number));
    expect(steps(sizes)).toEqual([]);
  });

  it("V8's default doubles it step by step (what the setting replaces)", () => {
    const { sizes } = youngGenerationSizes([], false);
    expect(steps(sizes).length).toBeGreaterThan(0);
  });

  it('keeps a growth factor given on the node command line', () => {
    const { sizes, factor } = youngGenerationSizes(['--semi_space_growth_factor=2'], true);
    expect(factor).toBeNull();
    expect(steps(sizes).length).toBeGreaterThan(0);
  });
});
