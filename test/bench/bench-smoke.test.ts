// The benchmark harness end to end on tiny sizes: the raw scenarios run as real child processes and
// the JSON has the documented shape. No figure is judged here (issue: no timed assertions in tests).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchRun } from '../../bench/lib/types.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

let dir: string;
let run: BenchRun;
let stdout: string;
let resultFiles: string[];

// dist/bench/ is compiled by the global setup (test/helpers/global-setup.ts).
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-bench-test-'));
  const bench = spawnSync(
    process.execPath,
    ['dist/bench/run.js', '--only', 'raw', '--large-mb', '2', '--small-count', '5', '--small-kb', '10', '--results', join(dir, 'results'), '--work', join(dir, 'work')],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(bench.status, bench.stderr).toBe(0);
  stdout = bench.stdout;
  resultFiles = readdirSync(join(dir, 'results'));
  run = JSON.parse(readFileSync(join(dir, 'results', resultFiles[0] as string), 'utf8')) as BenchRun;
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench (raw scenarios, tiny sizes)', () => {
  it('writes one JSON result with the machine description and the options', () => {
    expect(resultFiles).toHaveLength(1);
    expect(resultFiles[0]).toMatch(/\.json$/);
    expect(run.schema).toBe(1);
    expect(Date.parse(run.startedAt)).not.toBeNaN();
    expect(run.machine.cores).toBeGreaterThan(0);
    expect(run.machine.memoryBytes).toBeGreaterThan(0);
    expect(run.machine.node).toBe(process.version);
    expect(run.machine.disk.device).not.toBe('');
    expect(run.machine.disk.totalBytes).toBeGreaterThan(0);
    expect(run.options).toMatchObject({ only: ['raw'], largeBytes: 2 * 1024 * 1024, smallCount: 5, smallBytes: 10_000 });
  });

  it('runs the three raw baselines as separate processes and measures both of each pair', () => {
    expect(run.scenarios.map((s) => s.name)).toEqual(['raw-tcp', 'raw-copy', 'raw-small']);
    for (const s of run.scenarios) {
      expect(s.status, s.reason).toBe('ok');
      expect(s.value).toBeGreaterThan(0);
      expect(s.seconds).toBeGreaterThan(0);
      expect(s.processes.map((p) => p.role)).toEqual(['sender', 'receiver']);
      const pids = new Set(s.processes.map((p) => p.pid));
      expect(pids.size).toBe(2);
      expect(pids.has(process.pid)).toBe(false);
      for (const p of s.processes) {
        expect(p.cpuSeconds).toBeGreaterThanOrEqual(0);
        // The main thread's part, read from its own task entry, is within the whole (ticks of 10 ms).
        expect(p.mainThreadCpuSeconds).toBeGreaterThanOrEqual(0);
        expect(p.mainThreadCpuSeconds).toBeLessThanOrEqual(p.cpuSeconds + 0.011);
        expect(p.peakRssBytes).toBeGreaterThan(0);
      }
    }
    const [tcp, copy, small] = run.scenarios;
    expect(tcp).toMatchObject({ unit: 'MB/s', bytes: 2 * 1024 * 1024 });
    expect(copy).toMatchObject({ unit: 'MB/s', bytes: 2 * 1024 * 1024, files: 1 });
    expect(small).toMatchObject({ unit: 'transfers/s', files: 5, bytes: 50_000 });
  });

  it('evaluates every target, skipped ones with the reason', () => {
    expect(run.targets).toHaveLength(12);
    for (const t of run.targets) {
      expect(t.status).toBe('SKIP');
      expect(t.reason).toMatch(/not run|no svc scenario ran/);
    }
  });

  it('prints the table and the targets and names the JSON file', () => {
    expect(stdout).toMatch(/^scenario\s+result\s+unit\s+ratio/m);
    expect(stdout).toMatch(/^raw-copy\s+\d/m);
    expect(stdout).toMatch(/^large >= 0\.6 x raw-copy\s+SKIP/m);
    expect(stdout).toContain(`results: ${join(dir, 'results')}`);
  });

  it('removes its temporary files', () => {
    expect(readdirSync(join(dir, 'work'))).toEqual([]);
  });
});
