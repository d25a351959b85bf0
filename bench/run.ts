/**
 * `npm run bench`: runs the chosen scenarios one after another on this machine, prints the table
 * and the targets, and writes the whole run as JSON under bench/results/. See docs/performance.md.
 *
 * Exit code: 0 when every chosen scenario ran or was skipped with a reason (a MISS is a result, not
 * an error), 1 when a scenario failed, 2 on a bad command line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArgsError, MONITORING_COMPARED, MSEND_FILES, parseArgs, selectScenarios, SMALL_SCENARIOS, USAGE, withMonitoring, type ScenarioName } from './lib/args.js';
import { makeFixtures } from './lib/fixtures.js';
import { describeMachine } from './lib/machine.js';
import { settleDisk } from './lib/settle.js';
import { addRatios, combineRuns, evaluateTargets, formatRun } from './lib/report.js';
import { notRun, type Scenario, type ScenarioContext } from './lib/scenario.js';
import type { BenchOptions, BenchRun, MonitoringFacility, ScenarioResult } from './lib/types.js';
import { sha512Alone } from './raw/hash-scenario.js';
import { rawCopy, rawSmall, rawTcp } from './raw/scenarios.js';
import { largeSha512 } from './svc/large-sha512.js';
import { SVC_SCENARIOS, type SvcSuite } from './svc/scenarios.js';

/** Scenarios that run on their own (large-sha512 sets up its own pair of hosts); the others on the shared svc hosts. */
const RAW: Partial<Record<ScenarioName, Scenario>> = { 'raw-tcp': rawTcp, 'raw-copy': rawCopy, 'raw-small': rawSmall, sha512: sha512Alone, 'large-sha512': largeSha512 };

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

function fixtureNeeds(names: ScenarioName[], opts: BenchOptions): { large: boolean; smallCount: number } {
  const has = (n: ScenarioName): boolean => names.includes(n);
  const large = has('raw-copy') || has('sha512') || names.some((n) => n.startsWith('large'));
  let smallCount = has('raw-small') || has('small-seq') ? opts.smallCount : 0;
  if (has('small-concurrent')) smallCount = Math.max(smallCount, opts.concurrentCount);
  if (has('small-msend')) smallCount = Math.max(smallCount, MSEND_FILES);
  return { large, smallCount };
}

async function runScenario(name: ScenarioName, ctx: ScenarioContext, svc: () => Promise<SvcSuite>): Promise<ScenarioResult> {
  try {
    const raw = RAW[name];
    return raw !== undefined ? await raw(ctx) : await (await svc()).run(name, ctx);
  } catch (err) {
    return notRun(name, 'failed', err instanceof Error ? err.message : String(err));
  }
}

/** A pair of svc hosts, started on first use and shared by the svc scenarios of every pass. */
class LazySuite {
  private suite: Promise<SvcSuite> | undefined;
  constructor(private readonly ctx: ScenarioContext, private readonly monitoring: readonly MonitoringFacility[]) {}
  get(): Promise<SvcSuite> {
    return (this.suite ??= SVC_SCENARIOS.open(this.ctx, this.monitoring));
  }
  async close(): Promise<void> {
    await (await this.suite)?.close();
  }
}

/**
 * Runs the selection `repeat` times, round robin; in each round the small scenarios run
 * `smallRounds` times in turn after the others. Each pass gets its ratios (against the baseline of
 * the same pass) before the runs of each scenario are combined.
 *
 * With --compare-monitoring the scenarios of MONITORING_COMPARED run twice in each pass, on the
 * pair of hosts without monitoring and on the pair with it, one right after the other, the first
 * of the two alternating from pass to pass (without, with; with, without; ...): this machine's pace
 * drifts within minutes, and two figures taken seconds apart, in both orders, share its drift.
 */
async function runScenarios(names: ScenarioName[], ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const { repeat, smallRounds, compareMonitoring, monitoring } = ctx.opts;
  const runs = new Map<string, ScenarioResult[]>();
  const once = names.filter((n) => !SMALL_SCENARIOS.includes(n));
  const small = names.filter((n) => SMALL_SCENARIOS.includes(n));
  const passes: Array<{ names: ScenarioName[]; label: string }> = [];
  for (let round = 1; round <= repeat; round++) {
    const roundLabel = repeat > 1 ? `round ${round}/${repeat}` : '';
    if (once.length > 0) passes.push({ names: once, label: roundLabel });
    for (let k = 1; k <= smallRounds && small.length > 0; k++) {
      passes.push({ names: small, label: [roundLabel, smallRounds > 1 ? `small ${k}/${smallRounds}` : ''].filter((x) => x !== '').join(', ') });
    }
  }
  const plain = new LazySuite(ctx, compareMonitoring ? [] : monitoring);
  const monitored = new LazySuite(ctx, monitoring);
  const compared = (n: ScenarioName): boolean => compareMonitoring && MONITORING_COMPARED.includes(n);
  const turns = new Map<ScenarioName, number>();
  const measure = async (name: ScenarioName, tag: string, suite: LazySuite): Promise<ScenarioResult> => {
    const settled = settleDisk(ctx.workDir);
    let note = '';
    if (settled === null) note = ' (the disk could not be synced first)';
    else if (settled >= 0.5) note = ` (disk synced first in ${settled.toFixed(1)} s)`;
    log(`${tag}: running${note}`);
    const result = await runScenario(name, ctx, () => suite.get());
    log(`${tag}: ${result.status === 'ok' ? `${result.value.toFixed(1)} ${result.unit}` : `${result.status}: ${result.reason ?? ''}`}`);
    return result;
  };
  try {
    for (const pass of passes) {
      const results: ScenarioResult[] = [];
      for (const name of pass.names) {
        const tag = (n: string): string => (pass.label === '' ? n : `${n} (${pass.label})`);
        if (!compared(name)) {
          results.push(await measure(name, tag(name), plain));
          continue;
        }
        const turn = turns.get(name) ?? 0;
        turns.set(name, turn + 1);
        const pair: Array<[LazySuite, string]> = [[plain, name], [monitored, withMonitoring(name)]];
        if (turn % 2 === 1) pair.reverse();
        for (const [suite, shown] of pair) {
          const r = await measure(name, tag(shown), suite);
          results.push(shown === name ? r : { ...r, name: shown });
        }
      }
      addRatios(results);
      for (const r of results) runs.set(r.name, [...(runs.get(r.name) ?? []), r]);
    }
  } finally {
    await Promise.all([plain.close(), monitored.close()]);
  }
  const shownNames = names.flatMap((n) => (compared(n) ? [n, withMonitoring(n)] : [n]));
  return combineRuns(shownNames.map((n) => runs.get(n) ?? []));
}

async function main(): Promise<number> {
  // The web UI's paging scenario has its own options: npm run bench -- web-paging --help (bench/web).
  if (process.argv[2] === 'web-paging') return (await import('./web/list-paging.js')).runWebPaging(process.argv.slice(3));
  // The FileWatcher scenario (issue 24): npm run bench -- watch [--files N] [--scan N] ... (bench/watch).
  if (process.argv[2] === 'watch') return (await import('./watch/watch-bench.js')).runWatchBench(process.argv.slice(3));
  let opts: BenchOptions | 'help';
  try {
    opts = parseArgs(process.argv.slice(2), process.cwd());
  } catch (err) {
    if (!(err instanceof ArgsError)) throw err;
    process.stderr.write(`bench: ${err.message}\n`);
    return 2;
  }
  if (opts === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const names = selectScenarios(opts.only);
  mkdirSync(opts.workRoot, { recursive: true });
  const workDir = mkdtempSync(join(opts.workRoot, 'svc-bench-'));
  const cleanup = (): void => {
    if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  };
  // An interrupted run must not leave a 1 GiB file behind.
  const onSignal = (): void => {
    cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const startedAt = new Date().toISOString();
    const machine = describeMachine(workDir);
    log(`work folder ${workDir}; making the files`);
    const fixtures = await makeFixtures(join(workDir, 'fixtures'), fixtureNeeds(names, opts), opts);
    const scenarios = await runScenarios(names, { opts, fixtures, workDir, log });
    const run: BenchRun = { schema: 1, startedAt, finishedAt: new Date().toISOString(), options: opts, machine, scenarios, targets: evaluateTargets(scenarios, opts.digest) };
    process.stdout.write(formatRun(run));
    mkdirSync(opts.resultsDir, { recursive: true });
    const file = join(opts.resultsDir, `${startedAt.replace(/[:.]/g, '-')}${opts.quick ? '-quick' : ''}.json`);
    writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
    process.stdout.write(`\nresults: ${file}\n`);
    return scenarios.some((s) => s.status === 'failed') ? 1 : 0;
  } finally {
    cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
