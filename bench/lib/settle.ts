/**
 * Writes back the page cache's dirty data before a scenario, so that no scenario pays for the
 * writeback of the files an earlier one (or the fixtures) left behind. Without it the kernel
 * flushed raw-small's 125 MB, or the fixtures', in the middle of the next scenario: raw-small ran
 * at 390-450 files/s right after the fixtures were made and at 610-790 /s after a sync
 * (docs/performance.md, "Seventh pass").
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** Longest wait for the writeback; a slower disk goes on unsettled rather than stopping the run. */
const SETTLE_TIMEOUT_MS = 120_000;

/**
 * `sync -f DIR` (syncfs of the work folder's file system), else a plain `sync`. Returns the
 * seconds it took, or null when neither could run (the scenario then starts unsettled).
 */
export function settleDisk(dir: string): number | null {
  const started = performance.now();
  for (const args of [['-f', dir], []]) {
    try {
      execFileSync('sync', args, { stdio: 'ignore', timeout: SETTLE_TIMEOUT_MS });
      return (performance.now() - started) / 1000;
    } catch {
      // An old coreutils without -f: the plain form next.
    }
  }
  return null;
}
