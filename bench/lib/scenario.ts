/**
 * What a scenario gets (options, fixtures, its scratch folder) and the small helpers that turn a
 * measurement into a ScenarioResult, so every scenario reports in the same units.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioName } from './args.js';
import type { Fixtures } from './fixtures.js';
import type { BenchOptions, ProcessUsage, RssGrowth, ScenarioResult, ServerWarnings } from './types.js';

export interface ScenarioContext {
  opts: BenchOptions;
  fixtures: Fixtures;
  /** The run's temporary folder (fixtures, homes, received files). */
  workDir: string;
  /** Prints a progress line (stderr, so stdout stays the table). */
  log(line: string): void;
}

export type Scenario = (ctx: ScenarioContext) => Promise<ScenarioResult>;

export interface Measured {
  seconds: number;
  bytes: number;
  files: number;
  processes: ProcessUsage[];
  rssGrowth?: RssGrowth[];
  wallSeconds?: number;
  longestPauseSeconds?: number;
  serverWarnings?: ServerWarnings[];
}

const MB = 1e6;

export const DESCRIPTIONS: Record<ScenarioName, string> = {
  'raw-tcp': 'memory to memory, loopback TCP, two processes',
  'raw-copy': 'file read, loopback TCP, file written; no protocol, no hash',
  large: 'svc send, whole-file SHA-256, no TLS',
  'large-tls': 'svc send, whole-file SHA-256, TLS',
  'large-digest': 'svc send, per-block digest (-md5) + whole-file SHA-256',
  sha512: 'SHA-512 alone over the large file, one process, read from the page cache',
  'large-sha512': 'svc send, hosts with limit/digest SHA-512, whole-file digest, no TLS',
  'raw-small': 'files one after another on one TCP connection, acked after close',
  'small-seq': 'svc msend of the set (one connection; several files in flight once the first is taken)',
  'small-concurrent': 'svc, submitted at once, limited in flight',
  'small-msend': 'svc msend of 200 files, timed from process start to exit',
};

function base(name: ScenarioName, unit: ScenarioResult['unit']): ScenarioResult {
  return { name, description: DESCRIPTIONS[name], status: 'ok', unit, value: 0, bytes: 0, files: 0, seconds: 0, processes: [] };
}

export function throughput(name: ScenarioName, m: Measured): ScenarioResult {
  return { ...base(name, 'MB/s'), ...m, value: m.bytes / MB / m.seconds };
}

export function rate(name: ScenarioName, m: Measured): ScenarioResult {
  return { ...base(name, 'transfers/s'), ...m, value: m.files / m.seconds };
}

export function unitOf(name: ScenarioName): ScenarioResult['unit'] {
  return name === 'raw-small' || name.startsWith('small') ? 'transfers/s' : 'MB/s';
}

/** A scenario that did not run, with the reason shown in the table (never dropped silently). */
export function notRun(name: ScenarioName, status: 'skipped' | 'failed', reason: string): ScenarioResult {
  return { ...base(name, unitOf(name)), status, reason };
}

/** A fresh, empty folder inside the run's temporary folder (what was there is set aside). */
export function scratch(ctx: ScenarioContext, name: string): string {
  const dir = join(ctx.workDir, name);
  mkdirSync(dir, { recursive: true });
  setAside(ctx, dir);
  return dir;
}

/** Files at least this big are deleted, not set aside: one inode each, and they take disk space. */
const DELETE_FROM_BYTES = 1024 * 1024;
let setAsideCount = 0;

/**
 * Empties `dir` by moving its entries into the run's `set-aside` folder (removed with the run's
 * folder at the end) instead of deleting them. Why: on a journal-less ext4 (this VM's disk), the
 * kernel skips each recently deleted inode of a block group one by one when it allocates a new
 * one (find_inode_bit / recently_deleted), so creating a file after a few thousand deletions
 * costs up to 20 times a normal create (0.6 ms against 0.03 ms of CPU, measured here). Deleting
 * one scenario's received files would tax whichever scenario, raw or svc, creates files next.
 */
export function setAside(ctx: ScenarioContext, dir: string): void {
  const aside = join(ctx.workDir, 'set-aside', String(++setAsideCount));
  mkdirSync(aside, { recursive: true });
  for (const name of readdirSync(dir)) {
    const entry = join(dir, name);
    const st = lstatSync(entry);
    if (st.isFile() && st.size >= DELETE_FROM_BYTES) rmSync(entry, { force: true });
    else renameSync(entry, join(aside, name));
  }
}
