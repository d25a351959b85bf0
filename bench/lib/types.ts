/**
 * The shapes the benchmark produces: one ScenarioResult per scenario, the evaluated targets, and the
 * whole run as written to bench/results/*.json. Kept free of behaviour so the smoke test and any
 * later tooling can rely on them.
 */

/** Resource use of one process (a host, a raw peer, a client) while a scenario ran. */
export interface ProcessUsage {
  /** What the process was in the scenario: 'sender', 'receiver', 'host-a', 'host-b', 'client'. */
  role: string;
  pid: number;
  /** User + system CPU time used during the scenario, in seconds. */
  cpuSeconds: number;
  /**
   * The part of it used by the process's main thread (the event loop: what a Node process can do
   * at most one core of); the rest went to its other threads (thread pool, GC helpers, a hashing
   * thread). Absent where /proc has no task entry for it.
   */
  mainThreadCpuSeconds?: number;
  /** Highest resident set size seen during the scenario, in bytes. */
  peakRssBytes: number;
}

export type ScenarioStatus = 'ok' | 'skipped' | 'failed';

export interface ScenarioResult {
  name: string;
  /** One line for the table: what was moved and how. */
  description: string;
  status: ScenarioStatus;
  /** Why a scenario was skipped or failed; printed in the table, never dropped. */
  reason?: string;
  unit: 'MB/s' | 'transfers/s';
  /** Throughput in MB/s (10^6 bytes) or transfers per second; 0 when not ok. */
  value: number;
  /** The scenario this one is compared with (raw-copy, raw-small), when it has one. */
  baseline?: string;
  /** value / baseline value, when both ran (with several runs: the median of each run's ratio). */
  ratio?: number;
  /** With several runs (--repeat, --small-rounds): the value of every run, in order (`value` is their median). */
  runs?: number[];
  /** With several runs: each run's ratio to the baseline of the same round. */
  runRatios?: number[];
  bytes: number;
  files: number;
  /** The time the figure is computed from (see docs/performance.md for what each scenario times). */
  seconds: number;
  /** svc scenarios: wall time of the whole command(s), process start and configuration included. */
  wallSeconds?: number;
  /**
   * small-msend: where the command's wall time went, in seconds, in order (the process start and
   * configuration before the first transfer, the transfers as msend's own `delay` times them, the
   * rest: closing and exit).
   */
  phases?: Array<{ name: string; seconds: number }>;
  processes: ProcessUsage[];
  /**
   * Small-file scenarios with enough transfers: peak RSS per process during the first and the last
   * half (or thousand) of the transfers, and the growth between them.
   */
  rssGrowth?: RssGrowth[];
  /** Small-file scenarios: the longest time, in seconds, in which no transfer completed. */
  longestPauseSeconds?: number;
  /** svc scenarios: warnings and errors the servers logged during the scenario. */
  serverWarnings?: ServerWarnings[];
}

export interface ServerWarnings {
  role: string;
  count: number;
  /** The last few (truncated) log lines. */
  last: string[];
}

export interface RssGrowth {
  role: string;
  firstBytes: number;
  lastBytes: number;
  /** lastBytes / firstBytes - 1. */
  growth: number;
  /** How many transfers each window covered. */
  window: number;
}

export type TargetStatus = 'PASS' | 'MISS' | 'SKIP';

export interface TargetResult {
  name: string;
  /** The rule as the issue states it, e.g. "large >= 0.6 x raw-copy". */
  rule: string;
  status: TargetStatus;
  /** The measured figure compared with the threshold (a ratio, a rate, bytes), absent when skipped. */
  measured?: number;
  threshold: number;
  reason?: string;
}

export interface MachineInfo {
  hostname: string;
  cores: number;
  cpuModel: string;
  memoryBytes: number;
  node: string;
  platform: string;
  kernel: string;
  /** The disk the benchmark files live on. */
  disk: DiskInfo;
  /** 1-minute load average when the run started: a hint of how noisy the machine was. */
  loadAverage: number[];
  /**
   * SHA-256 on one core, MB/s (Node's crypto, 64 KiB updates), and whether the CPU has the SHA
   * extensions: the large scenarios hash every byte on both sides, so this bounds them (about
   * 1 GB/s with SHA-NI, 220 MB/s without on the machines we ran on; docs/performance.md).
   */
  sha256: { mbPerSecond: number; shaNi: boolean };
}

export interface DiskInfo {
  path: string;
  device: string;
  fsType: string;
  totalBytes: number;
  freeBytes: number;
  /** From /sys/block/<dev>/queue/rotational; undefined when not found (virtual devices). */
  rotational?: boolean;
}

export interface BenchOptions {
  quick: boolean;
  /** Scenario names to run; empty = all. */
  only: string[];
  /** Size of the large file in bytes. */
  largeBytes: number;
  smallBytes: number;
  smallCount: number;
  concurrentCount: number;
  concurrency: number;
  /** fdatasync each received file before acknowledging it (raw baselines); see docs/performance.md. */
  sync: boolean;
  /** The svc hosts' digest, a name of args.ts DIGESTS (the targets assume SHA256). */
  digest: string;
  /** Where the JSON goes. */
  resultsDir: string;
  /** Where the test files and homes are made (a fresh temporary folder under it). */
  workRoot: string;
  /** Rounds of the whole selection (round robin, so baselines and svc see the same noise). */
  repeat: number;
  /** Runs of the small scenarios in each round, in turn (args.ts SMALL_SCENARIOS). */
  smallRounds: number;
  /**
   * Small files sent twice through the svc hosts right after they start, unmeasured: the servers'
   * hot paths are compiled before the measured scenarios, as on a server that has been running.
   */
  warmup: number;
  /** Keep the temporary folder (for inspection). */
  keep: boolean;
  /** Run the svc processes with --cpu-prof and summarise their profiles (see lib/profile.ts). */
  profile: boolean;
  /**
   * The monitoring facilities the svc hosts run with (bench/svc/monitoring.ts); empty: none. With
   * `compareMonitoring`, only the second pair of hosts has them.
   */
  monitoring: MonitoringFacility[];
  /**
   * The small svc scenarios run on two pairs of hosts, one without monitoring and one with
   * `monitoring`, alternately, and are judged against each other (issue 26 item 7).
   */
  compareMonitoring: boolean;
}

/** What `--monitoring` can switch on, one by one. */
export type MonitoringFacility = 'metrics' | 'push' | 'snmp';

export interface BenchRun {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  options: BenchOptions;
  machine: MachineInfo;
  scenarios: ScenarioResult[];
  targets: TargetResult[];
}
