/**
 * Command line of `npm run bench -- [options]`. Sizes default to the figures; --quick picks
 * small ones for a smoke run. Sizes can also be set one by one (the smoke test uses tiny ones).
 */
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { BenchOptions, MonitoringFacility } from './types.js';

export const SCENARIOS = ['raw-tcp', 'raw-copy', 'large', 'large-tls', 'large-digest', 'sha512', 'large-sha512', 'raw-small', 'small-seq', 'small-concurrent', 'small-msend'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/**
 * The scenarios run --small-rounds times in each round. Each lasts one to five seconds, and this
 * machine's pace drifts by a third within a minute: raw-small (0.6-1 s) measured once could land
 * in a fast second and small-seq in a slow one (docs/performance.md, "Eleventh pass").
 */
export const SMALL_SCENARIOS: readonly ScenarioName[] = ['raw-small', 'small-seq', 'small-concurrent', 'small-msend'];

/** small-msend's files: the command, `msend` of 200 files (issue 37 item 1), whatever the other sizes. */
export const MSEND_FILES = 200;

/** Which baseline each scenario is judged against (run automatically when the scenario is chosen). */
export const BASELINE_OF: Partial<Record<ScenarioName, ScenarioName>> = {
  large: 'raw-copy',
  'large-tls': 'raw-copy',
  'large-digest': 'raw-copy',
  // Issue 37 item 2: the transfer with SHA-512 against SHA-512 alone over the same file.
  'large-sha512': 'sha512',
  'small-seq': 'raw-small',
};

/** The facilities of `--monitoring`, in the order they are named in the output. */
export const MONITORING_FACILITIES: readonly MonitoringFacility[] = ['metrics', 'push', 'snmp'];

/** The scenarios `--compare-monitoring` runs on both pairs of hosts (issue 26 item 7: small files). */
export const MONITORING_COMPARED: readonly ScenarioName[] = ['small-seq', 'small-concurrent'];

/** --small-rounds with --compare-monitoring, unless given: the passes whose ratios' median is judged. */
export const COMPARE_SMALL_ROUNDS = 12;

/** The name under which a scenario's runs on the hosts with monitoring are reported. */
export const withMonitoring = (name: string): string => `${name}+monitoring`;

/** The digests of server.xml limit/digest, by the number the configuration uses (config.md). */
export const DIGESTS = ['CRC32', 'ADLER32', 'MD5', 'MD2', 'SHA1', 'SHA256', 'SHA384', 'SHA512'] as const;
/** The digest the targets are defined with (its large scenario names SHA-256). */
export const TARGET_DIGEST = 'SHA256';

export const USAGE = `usage: npm run bench -- [options]

  --quick                 small sizes (64 MiB, 100 + 200 small files): a smoke run in well under a minute
  --only NAME[,NAME...]   run these scenarios (and their baselines); a prefix selects a group:
                          raw, large, small, or one of: ${SCENARIOS.join(', ')}
  --large-mb N            size of the large file in MiB (default 1024)
  --small-kb N            size of each small file in KB of 1000 bytes (default 250)
  --small-count N         files of the sequential small scenarios (default 500)
  --concurrent-count N    files of the concurrent scenario (default 2000)
  --concurrency N         transfers in flight in the concurrent scenario (default 100)
  --repeat N              run the selection N times, round robin; each figure is the median
  --small-rounds N        within each round, run the small scenarios (raw-small, small-seq,
                          small-concurrent, small-msend) N times in turn; each figure is the median
                          (default 3, --quick 1)
  --warmup N              small files sent twice (msend, then masend) through the svc hosts once
                          they start, before anything is measured (default 1200, --quick 50; 0: none)
  --sync                  raw baselines fdatasync each received file before acknowledging it
  --digest NAME           the svc hosts' digest (${DIGESTS.join(', ')}; default ${TARGET_DIGEST}, which
                          the targets assume: with another one the throughput targets are SKIP)
  --results DIR           where the JSON result goes (default bench/results)
  --work DIR              where the temporary files are made (default the system temp dir)
  --keep                  keep the temporary files
  --profile               svc processes write CPU profiles (bench/results/profile-*/), summarised at the end
  --monitoring[=LIST]     svc hosts run with Prometheus metrics (scraped every second), push monitoring
                          (every second, to a receiver in the bench) and the SNMP agent (level-4 traps);
                          LIST picks some of them: ${MONITORING_FACILITIES.join(',')}
  --compare-monitoring    small-seq and small-concurrent also run on a second pair of hosts with the
                          monitoring of --monitoring (default: all of it), alternating with the first
                          pair (without), each pass in turn first; reports both and judges the cost
                          on the median of the passes' ratios (--small-rounds defaults to ${COMPARE_SMALL_ROUNDS} here)
  --help                  this text
`;

export class ArgsError extends Error {}

const MiB = 1024 * 1024;

function nonNegativeInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 0) throw new ArgsError(`${flag} expects a whole number (0 or more), got ${value ?? 'nothing'}`);
  return n;
}

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n <= 0) throw new ArgsError(`${flag} expects a positive integer, got ${value ?? 'nothing'}`);
  return n;
}

/** `push,snmp` -> the facilities, in MONITORING_FACILITIES order; an unknown name is an error. */
function monitoringList(list: string): MonitoringFacility[] {
  const names = list.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !(MONITORING_FACILITIES as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) throw new ArgsError(`--monitoring= expects some of ${MONITORING_FACILITIES.join(',')}, got ${list === '' ? 'nothing' : list}`);
  return MONITORING_FACILITIES.filter((f) => names.includes(f));
}

/** Expands names and prefixes to scenario names, in the canonical order, baselines included. */
export function selectScenarios(only: string[]): ScenarioName[] {
  if (only.length === 0) return [...SCENARIOS];
  const chosen = new Set<ScenarioName>();
  for (const want of only) {
    const hits = SCENARIOS.filter((s) => s === want || s.startsWith(`${want}-`));
    if (hits.length === 0) throw new ArgsError(`--only: unknown scenario ${want} (known: ${SCENARIOS.join(', ')})`);
    for (const h of hits) {
      chosen.add(h);
      // A ratio is only meaningful against a baseline of the same run (issue: noisy shared machines).
      const base = BASELINE_OF[h];
      if (base !== undefined) chosen.add(base);
    }
  }
  return SCENARIOS.filter((s) => chosen.has(s));
}

export function parseArgs(argv: string[], cwd: string): BenchOptions | 'help' {
  const opts: BenchOptions = {
    quick: false,
    only: [],
    largeBytes: 1024 * MiB,
    smallBytes: 250_000,
    smallCount: 500,
    concurrentCount: 2000,
    concurrency: 100,
    sync: false,
    digest: TARGET_DIGEST,
    repeat: 1,
    smallRounds: 3,
    warmup: 1200,
    resultsDir: resolve(cwd, 'bench/results'),
    workRoot: tmpdir(),
    keep: false,
    profile: false,
    monitoring: [],
    compareMonitoring: false,
  };
  const explicit = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const next = (): string | undefined => argv[++i];
    switch (flag) {
      case '--help': case '-h': return 'help';
      case '--quick': opts.quick = true; break;
      case '--only': {
        const v = next();
        if (v === undefined) throw new ArgsError('--only expects a scenario name');
        opts.only.push(...v.split(',').map((s) => s.trim()).filter((s) => s !== ''));
        break;
      }
      case '--large-mb': opts.largeBytes = positiveInt(flag, next()) * MiB; explicit.add('large'); break;
      case '--small-kb': opts.smallBytes = positiveInt(flag, next()) * 1000; break;
      case '--small-count': opts.smallCount = positiveInt(flag, next()); explicit.add('small'); break;
      case '--concurrent-count': opts.concurrentCount = positiveInt(flag, next()); explicit.add('concurrent'); break;
      case '--concurrency': opts.concurrency = positiveInt(flag, next()); break;
      case '--sync': opts.sync = true; break;
      case '--digest': {
        const v = (next() ?? '').toUpperCase().replace('-', '');
        if (!(DIGESTS as readonly string[]).includes(v)) throw new ArgsError(`--digest expects one of ${DIGESTS.join(', ')}`);
        opts.digest = v;
        break;
      }
      case '--repeat': opts.repeat = positiveInt(flag, next()); break;
      case '--small-rounds': opts.smallRounds = positiveInt(flag, next()); explicit.add('small-rounds'); break;
      case '--warmup': opts.warmup = nonNegativeInt(flag, next()); explicit.add('warmup'); break;
      case '--results': opts.resultsDir = resolve(cwd, next() ?? ''); break;
      case '--work': opts.workRoot = resolve(cwd, next() ?? ''); break;
      case '--keep': opts.keep = true; break;
      case '--profile': opts.profile = true; break;
      case '--monitoring': opts.monitoring = [...MONITORING_FACILITIES]; break;
      case '--compare-monitoring': opts.compareMonitoring = true; break;
      default:
        if (flag.startsWith('--monitoring=')) {
          opts.monitoring = monitoringList(flag.slice('--monitoring='.length));
          break;
        }
        throw new ArgsError(`unknown option ${flag}\n\n${USAGE}`);
    }
  }
  if (opts.quick) {
    // Explicit sizes win over --quick so a smoke run can be made even smaller.
    if (!explicit.has('large')) opts.largeBytes = 64 * MiB;
    if (!explicit.has('small')) opts.smallCount = 100;
    if (!explicit.has('concurrent')) opts.concurrentCount = 200;
    if (!explicit.has('warmup')) opts.warmup = 50;
    if (!explicit.has('small-rounds')) opts.smallRounds = 1;
  }
  if (opts.compareMonitoring) {
    if (opts.monitoring.length === 0) opts.monitoring = [...MONITORING_FACILITIES];
    // Each pass gives one ratio, and one pass's ratio swings by +-15% on this machine (its pace
    // drifts within seconds): the median of 3 cannot tell 5% from 10% (docs/performance-log.md).
    if (!explicit.has('small-rounds') && !opts.quick) opts.smallRounds = COMPARE_SMALL_ROUNDS;
  }
  selectScenarios(opts.only); // validates the names early
  return opts;
}
