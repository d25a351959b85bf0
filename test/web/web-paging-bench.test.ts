// `npm run bench -- web-paging` end to end on a small table: the scenario runs from the compiled
// bench against dist/, prints every page with its verdict and writes its JSON. No figure is judged
// here (timings belong to the bench, not to tests).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

interface PagingRun {
  scenario: string;
  rows: number;
  targetMs: number;
  pass: boolean;
  pages: Array<{ page: string; roundTripMs: number; serverMs: number; cpuMs: number; rows: number; judged: boolean; pass: boolean }>;
}

let dir: string;

// dist/bench/ is compiled by the global setup (test/helpers/global-setup.ts).
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-web-paging-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bench = (...args: string[]) => spawnSync(process.execPath, ['dist/bench/run.js', 'web-paging', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

describe('npm run bench -- web-paging', () => {
  it('fills the table, serves every page over HTTPS with a session, prints the verdict and writes the JSON', () => {
    const run = bench('--rows', '3000', '--repeat', '1', '--keep', join(dir, 'db'), '--results', join(dir, 'results'));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('web paging on SQLite: 3000 RUNNER rows');
    expect(run.stdout).toMatch(/worst judged page: .*: (PASS|MISS)/);
    const files = readdirSync(join(dir, 'results'));
    expect(files).toHaveLength(1);
    const result = JSON.parse(readFileSync(join(dir, 'results', files[0]!), 'utf8')) as PagingRun;
    expect(result).toMatchObject({ scenario: 'web-paging', rows: 3000, targetMs: 100 });
    const page = (name: string) => result.pages.find((p) => p.page === name)!;
    // Full pages where the data has them; the partner filter pages through its 60 rows.
    for (const name of ['all page 1', 'all page 2', 'rule=send page 1', 'status error page 1', 'partner=partner7 page 1']) expect(page(name).rows, name).toBe(48);
    expect(page('partner=partner7 page 2').rows).toBe(12);
    expect(page('rule=send + in transfer (no row: scan)')).toMatchObject({ rows: 0, judged: false });
    for (const p of result.pages) {
      expect(p.roundTripMs).toBeGreaterThan(0);
      expect(p.pass).toBe(p.roundTripMs < 100);
    }
    // A kept database is reused: nothing inserted the second time.
    const again = bench('--rows', '3000', '--repeat', '1', '--keep', join(dir, 'db'), '--results', join(dir, 'results'));
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('rows inserted');
  }, 180_000);

  it('a bad option is a usage error (exit 2)', () => {
    const run = bench('--rows', 'many');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--rows expects a positive integer');
    expect(bench('--help').stdout).toContain('usage: npm run bench -- web-paging');
  });
});
