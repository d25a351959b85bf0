/**
 * The svc scenarios: two real hosts (separate `svc-r66server start` processes) and the client
 * commands a user would type. hosta sends, hostb receives.
 *
 * - large, large-tls, large-digest: `svc-r66client send` of the large file to hostb, to hostb-ssl
 *   (TLS), and with -md5 (per-block digest). The client process is hosta's side of the transfer.
 * - small-seq: `svc-r66client msend` of the sequential set, one transfer after another.
 * - small-concurrent: `svc-r66client masend` of the concurrent set into hosta's database; hosta's
 *   scheduler runs them, at most `runlimit` (= --concurrency) in flight.
 *
 * Progress and completion are read where a user would see them: the files in hostb's in folder.
 */
import Database from 'better-sqlite3';
import { existsSync, linkSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIGESTS, MSEND_FILES, type ScenarioName } from '../lib/args.js';
import type { Child } from '../lib/child.js';
import { Monitor } from '../lib/proc.js';
import { notRun, rate, scratch, setAside, throughput, type ScenarioContext } from '../lib/scenario.js';
import type { MonitoringFacility, RssGrowth, ScenarioResult, ServerWarnings } from '../lib/types.js';
import { startMonitoringSinks, type MonitoringSinks } from './monitoring.js';
import { writeHomes, type Home } from './homes.js';
import { jsonResults, ROOT, runCli, setSvcNodeFlags, spawnCli, startServer } from './hosts.js';
import { profileNodeFlags, summarizeProfiles } from '../lib/profile.js';

const RUN_TIMEOUT_MS = 15 * 60_000;
/** A small-file scenario with no new file at hostb for this long is stuck. */
const STALL_MS = 60_000;
const POLL_MS = 50;
/** The issue's window for RSS growth: the first and the last thousand small transfers. */
const GROWTH_WINDOW = 1000;

export interface SvcSuite {
  run(name: ScenarioName, ctx: ScenarioContext): Promise<ScenarioResult>;
  close(): Promise<void>;
}

interface Hosts {
  a: Home;
  b: Home;
  serverA: Child;
  serverB: Child;
}

/** Hard links: the sets appear in hosta's out folder instantly, without copying. */
function linkSet(from: string, names: string[], to: string): void {
  mkdirSync(to, { recursive: true });
  for (const n of names) linkSync(join(from, n), join(to, n));
}

/** Files received so far at hostb (in and below), with their names. */
function received(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? dir, d.name));
}


async function waitExit(child: Child, timeoutMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${child.name}: no end after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return (await Promise.race([child.exited, timeout])).code;
  } finally {
    clearTimeout(timer);
    await child.stop('SIGKILL', 1000);
  }
}

function commandFailure(child: Child, code: number | null): Error {
  return new Error(`${child.name} exited ${code}: ${(child.stderr().trim() || child.stdout().trim()).slice(-1500)}`);
}

/** Peak RSS of each watched host in the first and the last window of transfers. */
function rssGrowth(monitor: Monitor, roles: string[], timeline: Array<{ t: number; count: number }>, total: number, tEnd: number): RssGrowth[] {
  const window = Math.min(GROWTH_WINDOW, Math.floor(total / 2));
  const reach = (n: number): number | undefined => timeline.find((p) => p.count >= n)?.t;
  const firstEnd = reach(window);
  const lastStart = reach(total - window);
  if (window < 1 || firstEnd === undefined || lastStart === undefined) return [];
  return monitor.all
    .filter((w) => roles.includes(w.role))
    .map((w) => {
      const firstBytes = w.peakBetween(monitor.startedAt, firstEnd);
      const lastBytes = w.peakBetween(lastStart, tEnd);
      return { role: w.role, firstBytes, lastBytes, growth: firstBytes > 0 ? lastBytes / firstBytes - 1 : 0, window };
    });
}

/**
 * The longest time between two completed transfers (a hint of transfers stuck until a timeout);
 * counted from the first completion, so process start and submission are not a pause.
 */
function longestPause(timeline: Array<{ t: number }>): number {
  let prev = timeline[0]?.t ?? 0;
  let longest = 0;
  for (const p of timeline) {
    longest = Math.max(longest, p.t - prev);
    prev = p.t;
  }
  return longest / 1000;
}

function withWarnings(r: ScenarioResult, w: ServerWarnings[]): ScenarioResult {
  if (w.length > 0) r.serverWarnings = w;
  return r;
}

/** Counts warnings logged by each server from now on; `collect()` gives what was added since. */
function warningsSince(servers: Array<[string, Child]>): () => ServerWarnings[] {
  const before = servers.map(([, c]) => c.warningCount);
  return () => servers
    .map(([role, c], i) => ({ role, count: c.warningCount - (before[i] ?? 0), last: c.lastWarnings }))
    .filter((w) => w.count > 0)
    .map((w) => ({ ...w, last: w.last.slice(-Math.min(w.count, w.last.length)) }));
}

class Suite implements SvcSuite {
  /** Which process each pid was, for the profile summary. */
  private readonly labels = new Map<number, string>();

  constructor(private readonly hosts: Hosts, private readonly profileDir: string | undefined, private readonly log: (line: string) => void, private readonly sinks: MonitoringSinks | undefined) {
    const pair = sinks === undefined ? '' : ` (monitoring: ${sinks.facilities.join(',')})`;
    this.labels.set(hosts.serverA.pid, `hosta server${pair}`);
    this.labels.set(hosts.serverB.pid, `hostb server${pair}`);
  }

  private client(args: string[], name: string, scenario: string): Child {
    const child = spawnCli('client', this.hosts.a, args, name);
    this.labels.set(child.pid, `${scenario}: ${name}`);
    return child;
  }

  async run(name: ScenarioName, ctx: ScenarioContext): Promise<ScenarioResult> {
    this.sinks?.scraping(true);
    try {
      return await this.runScenario(name, ctx);
    } finally {
      this.sinks?.scraping(false);
    }
  }

  private async runScenario(name: ScenarioName, ctx: ScenarioContext): Promise<ScenarioResult> {
    switch (name) {
      case 'large': return this.large(ctx, name, this.hosts.b.id, []);
      case 'large-tls': return this.large(ctx, name, this.hosts.b.sslId, []);
      case 'large-digest': return this.large(ctx, name, this.hosts.b.id, ['-md5']);
      case 'small-seq': return this.smallSeq(ctx);
      case 'small-concurrent': return this.smallConcurrent(ctx);
      case 'small-msend': return this.smallMsend(ctx);
      default: return notRun(name, 'failed', 'not an svc scenario');
    }
  }

  private async large(ctx: ScenarioContext, name: ScenarioName, partner: string, extra: string[]): Promise<ScenarioResult> {
    const { b, serverB } = this.hosts;
    setAside(ctx, b.inDir);
    const warnings = warningsSince([['host-b', serverB]]);
    const monitor = new Monitor();
    monitor.watch(serverB.pid, 'host-b');
    const t0 = performance.now();
    const client = this.client(['send', '-to', partner, '-rule', 'send', '-file', 'large.bin', ...extra], 'svc-r66client send', name);
    monitor.watch(client.pid, 'host-a client');
    const code = await waitExit(client, RUN_TIMEOUT_MS);
    const wallSeconds = (performance.now() - t0) / 1000;
    const processes = monitor.finish();
    if (code !== 0) throw commandFailure(client, code);
    const result = jsonResults(client.stdout())[0];
    // The receiver names the file after the transfer (<id>_..._large.bin): the one file in `in`.
    const files = received(b.inDir);
    const size = files.length === 1 ? statSync(files[0] as string).size : -1;
    setAside(ctx, b.inDir);
    if (size !== ctx.fixtures.largeBytes) throw new Error(`hostb has ${files.length} files of ${size} bytes, expected one of ${ctx.fixtures.largeBytes}`);
    // The transfer as the client times it (connection, request, data, end): comparable with the
    // raw baselines, which exclude process start too. The whole command is in wallSeconds.
    const delay = Number(result?.delay);
    const seconds = Number.isFinite(delay) && delay > 0 ? delay / 1000 : wallSeconds;
    return withWarnings(throughput(name, { seconds, wallSeconds, bytes: size, files: 1, processes }), warnings());
  }

  /**
   * What a stalled run left behind, for the error message: hosta's RUNNER rows by state (read-only,
   * while the server runs) and the last warnings and errors both servers logged.
   */
  private diagnose(): string {
    const parts: string[] = [];
    try {
      const db = new Database(join(this.hosts.a.confDir, 'server.sqlite'), { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare('SELECT updatedinfo AS u, infostatus AS s, COUNT(*) AS n FROM runner GROUP BY updatedinfo, infostatus').all() as Array<{ u: number; s: string; n: number }>;
        parts.push(`hosta rows (updatedinfo/infostatus: count): ${rows.map((r) => `${r.u}/${r.s}: ${r.n}`).join(', ')}`);
        // Where the in-flight (RUNNING) transfers wait, by the step their row reached: globalstep 0-1
        // with rank 0 = before or at the Request answer (the partner's pre-tasks), 2 = data,
        // 3 = post-tasks, i.e. at or after the EndTransfer answer.
        const waits = db.prepare('SELECT globalstep AS g, globallaststep AS l, CASE WHEN rank > 0 THEN 1 ELSE 0 END AS r, COUNT(*) AS n FROM runner WHERE updatedinfo = 5 GROUP BY g, l, r ORDER BY n DESC LIMIT 10').all() as Array<{ g: number; l: number; r: number; n: number }>;
        if (waits.length > 0) parts.push(`hosta RUNNING rows by step (globalstep/laststep, rank>0: count): ${waits.map((w) => `${w.g}/${w.l}${w.r ? ' rank>0' : ''}: ${w.n}`).join(', ')}`);
      } finally {
        db.close();
      }
    } catch (err) {
      parts.push(`hosta rows unreadable: ${(err as Error).message}`);
    }
    for (const [name, server] of [['hosta', this.hosts.serverA], ['hostb', this.hosts.serverB]] as const) {
      const bad = server.stdout().split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-3);
      if (bad.length > 0) parts.push(`${name} last warnings/errors:\n${bad.join('\n')}`);
    }
    return parts.join('\n');
  }

  /** Polls hostb's in folder until `total` files are there; returns the completion timeline. */
  private async follow(total: number, running: () => boolean): Promise<Array<{ t: number; count: number }>> {
    const timeline: Array<{ t: number; count: number }> = [];
    let last = 0;
    let lastChange = performance.now();
    for (;;) {
      // Names only: a file appears in `in` by its final rename, and this poll must cost the hosts
      // little CPU (a recursive listing with file types of 2000 entries is 2.5 ms, 20 times a second).
      const count = readdirSync(this.hosts.b.inDir).length;
      const t = performance.now();
      if (count !== last) {
        timeline.push({ t, count });
        last = count;
        lastChange = t;
      }
      if (count >= total) return timeline;
      if (t - lastChange > STALL_MS) throw new Error(`stalled: ${count} of ${total} files at hostb, none for ${STALL_MS / 1000} s\n${this.diagnose()}`);
      if (!running() && t - lastChange > 5000) throw new Error(`the command ended with ${count} of ${total} files at hostb`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private checkReceived(ctx: ScenarioContext, expected: number, size: number): void {
    const files = received(this.hosts.b.inDir);
    const wrong = files.filter((f) => statSync(f).size !== size);
    if (files.length !== expected || wrong.length > 0) throw new Error(`hostb has ${files.length} files (expected ${expected}), ${wrong.length} of the wrong size`);
    setAside(ctx, this.hosts.b.inDir);
  }

  /**
   * Runs the small-file paths of both servers before anything is measured: `msend` of the warm-up
   * set to hostb, then `masend` of it through hosta's scheduler, waiting for every file at hostb.
   * A server runs for months; one just started is still compiling its hot paths with TurboFan on
   * the machine's other core, and ran the first few hundred small transfers 20-30% slower; the
   * functions run once per transfer are optimized only after several hundred transfers, hence the
   * default of 1200 (docs/performance.md, "Ninth pass", "Tenth pass"). The client commands stay
   * cold: each is a new process, as a user's is. The msend part's rate is logged: what cold servers
   * do.
   */
  async warmUp(ctx: ScenarioContext, count: number): Promise<void> {
    const { b } = this.hosts;
    setAside(ctx, b.inDir);
    const t0 = performance.now();
    const send = this.client(['msend', '-to', b.id, '-rule', 'send', '-file', 'warm/*.dat'], 'svc-r66client msend', 'warm-up');
    const sendCode = await waitExit(send, RUN_TIMEOUT_MS);
    if (sendCode !== 0) throw commandFailure(send, sendCode);
    const seqSeconds = (performance.now() - t0) / 1000;
    const submit = this.client(['masend', this.hosts.a.submitXml, '-to', b.id, '-rule', 'send', '-file', 'warm/*.dat'], 'svc-r66client masend', 'warm-up');
    const submitCode = await waitExit(submit, RUN_TIMEOUT_MS);
    if (submitCode !== 0) throw commandFailure(submit, submitCode);
    await this.follow(2 * count, () => true);
    this.checkReceived(ctx, 2 * count, ctx.fixtures.smallBytes);
    ctx.log(`svc warm-up: ${count} files by msend (${(count / seqSeconds).toFixed(1)} /s with cold servers, process start included) and ${count} by masend in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }

  /**
   * `svc-r66client msend` of hosta's out/`folder`/*.dat to hostb, started with hostb's in folder
   * set aside; hostb and the client watched from before the spawn (t0), hostb's warnings counted.
   */
  private msendWatched(ctx: ScenarioContext, folder: string, scenario: string): { client: Child; monitor: Monitor; warnings: () => ServerWarnings[]; t0: number } {
    const { serverB } = this.hosts;
    setAside(ctx, this.hosts.b.inDir);
    const warnings = warningsSince([['host-b', serverB]]);
    const monitor = new Monitor();
    monitor.watch(serverB.pid, 'host-b');
    const t0 = performance.now();
    const client = this.client(['msend', '-to', this.hosts.b.id, '-rule', 'send', '-file', `${folder}/*.dat`], 'svc-r66client msend', scenario);
    monitor.watch(client.pid, 'host-a client');
    return { client, monitor, warnings, t0 };
  }

  private async smallSeq(ctx: ScenarioContext): Promise<ScenarioResult> {
    const total = ctx.opts.smallCount;
    const { client, monitor, warnings, t0 } = this.msendWatched(ctx, 'seq', 'small-seq');
    let exited = false;
    const exit = waitExit(client, RUN_TIMEOUT_MS).finally(() => (exited = true));
    exit.catch(() => undefined); // awaited below; a timeout must not be an unhandled rejection meanwhile
    const timeline = await this.follow(total, () => !exited).catch(async (err: unknown) => {
      await client.stop('SIGKILL', 1000);
      throw err;
    });
    const code = await exit;
    const tEnd = performance.now();
    const growth = rssGrowth(monitor, ['host-b', 'host-a client'], timeline, total, tEnd);
    const processes = monitor.finish();
    if (code !== 0) throw commandFailure(client, code);
    this.checkReceived(ctx, total, ctx.fixtures.smallBytes);
    const summary = jsonResults(client.stdout())[0];
    const delay = Number(summary?.delay);
    const wallSeconds = (tEnd - t0) / 1000;
    const seconds = Number.isFinite(delay) && delay > 0 ? delay / 1000 : wallSeconds;
    const longestPauseSeconds = longestPause(timeline);
    return withWarnings(rate('small-seq', { seconds, wallSeconds, bytes: total * ctx.fixtures.smallBytes, files: total, processes, rssGrowth: growth, longestPauseSeconds }), warnings());
  }

  /**
   * small-msend (issue 37 item 1): `svc-r66client msend` of exactly MSEND_FILES files, timed as a
   * user times the command, from before its process is spawned to its exit. The rate is the files
   * over that wall time; the phases split it with msend's own `delay` (its transfer work).
   */
  private async smallMsend(ctx: ScenarioContext): Promise<ScenarioResult> {
    const { client, monitor, warnings, t0 } = this.msendWatched(ctx, 'msend', 'small-msend');
    const code = await waitExit(client, RUN_TIMEOUT_MS);
    const wallSeconds = (performance.now() - t0) / 1000;
    const processes = monitor.finish();
    if (code !== 0) throw commandFailure(client, code);
    this.checkReceived(ctx, MSEND_FILES, ctx.fixtures.smallBytes);
    const delay = Number(jsonResults(client.stdout())[0]?.delay) / 1000;
    const result = rate('small-msend', { seconds: wallSeconds, wallSeconds, bytes: MSEND_FILES * ctx.fixtures.smallBytes, files: MSEND_FILES, processes });
    // The summary's delay runs from the command's work start (configuration loaded, database open) to its last result.
    if (Number.isFinite(delay) && delay > 0 && delay < wallSeconds) {
      result.phases = [{ name: 'start, configuration, exit', seconds: wallSeconds - delay }, { name: 'transfers', seconds: delay }];
    }
    return withWarnings(result, warnings());
  }

  private async smallConcurrent(ctx: ScenarioContext): Promise<ScenarioResult> {
    const { a, b, serverA, serverB } = this.hosts;
    const total = ctx.opts.concurrentCount;
    setAside(ctx, b.inDir);
    const warnings = warningsSince([['host-a', serverA], ['host-b', serverB]]);
    const monitor = new Monitor();
    monitor.watch(serverA.pid, 'host-a');
    monitor.watch(serverB.pid, 'host-b');
    const t0 = performance.now();
    // masend reads the configuration given first: the one whose database is hosta server's.
    const submit = this.client(['masend', a.submitXml, '-to', b.id, '-rule', 'send', '-file', 'conc/*.dat'], 'svc-r66client masend', 'small-concurrent');
    monitor.watch(submit.pid, 'submitter');
    // The submission ends before the transfers do; only a failed submission stops the wait.
    let submitFailed = false;
    const exit = waitExit(submit, RUN_TIMEOUT_MS).then((code) => {
      submitFailed = code !== 0;
      return code;
    });
    exit.catch(() => (submitFailed = true));
    const timeline = await this.follow(total, () => !submitFailed);
    const tEnd = performance.now();
    const submitCode = await exit;
    const growth = rssGrowth(monitor, ['host-a', 'host-b'], timeline, total, tEnd);
    const processes = monitor.finish();
    if (submitCode !== 0) throw commandFailure(submit, submitCode);
    this.checkReceived(ctx, total, ctx.fixtures.smallBytes);
    const wallSeconds = (tEnd - t0) / 1000;
    // The rate between the first and the last file's arrival: like the client's `delay` of the
    // other svc scenarios and the raw baselines, it leaves the command's process start-up out
    // (masend's Node start, module loading, configuration; the whole is kept as wallSeconds).
    const first = timeline[0];
    const steady = first !== undefined && first.count < total ? { seconds: (tEnd - first.t) / 1000, files: total - first.count } : { seconds: wallSeconds, files: total };
    const longestPauseSeconds = longestPause(timeline);
    return withWarnings(rate('small-concurrent', { seconds: steady.seconds, wallSeconds, bytes: steady.files * ctx.fixtures.smallBytes, files: steady.files, processes, rssGrowth: growth, longestPauseSeconds }), warnings());
  }

  async close(): Promise<void> {
    await Promise.all([this.hosts.serverA.stop('SIGTERM'), this.hosts.serverB.stop('SIGTERM')]);
    if (this.profileDir === undefined) return;
    // Profiles are written when each process exits: the servers' only now.
    const summary = summarizeProfiles(this.profileDir, ROOT, this.labels);
    writeFileSync(join(this.profileDir, 'summary.txt'), `${summary}\n`);
    this.log(`CPU profiles in ${this.profileDir}:\n${summary}`);
  }
}

/** Suite whose hosts could not be set up: every svc scenario reports why, none is dropped. */
function unavailable(reason: string): SvcSuite {
  return { run: async (name) => notRun(name, 'skipped', reason), close: async () => undefined };
}

/**
 * Set-ups tried before the svc scenarios are given up. The hosts' ports are chosen free (bound and
 * released) before their configuration is written, and another socket of the machine (any
 * outgoing connection takes its local port from the same range) can take one before its server
 * listens: the server then stops with EADDRINUSE, and a new set-up with new ports is made.
 */
const SETUP_ATTEMPTS = 3;

function portTaken(err: unknown): boolean {
  return err instanceof Error && err.message.includes('EADDRINUSE');
}

/**
 * Starts a pair of hosts (hosta, hostb) with these monitoring facilities (none: `[]`) and warms
 * them up. With --compare-monitoring the bench opens two pairs, each in its own folder.
 */
async function open(ctx: ScenarioContext, monitoring: readonly MonitoringFacility[]): Promise<SvcSuite> {
  let profileDir: string | undefined;
  if (ctx.opts.profile) {
    const pair = monitoring.length === 0 ? '' : `-monitoring`;
    profileDir = join(ctx.opts.resultsDir, `profile-${new Date().toISOString().replace(/[:.]/g, '-')}${pair}`);
    mkdirSync(profileDir, { recursive: true });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await setUp(ctx, profileDir, monitoring);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!portTaken(err) || attempt >= SETUP_ATTEMPTS) return unavailable(`svc hosts could not be set up: ${message}`);
      ctx.log(`svc hosts: a port was taken before its server listened (set-up ${attempt} of ${SETUP_ATTEMPTS}), new ports: ${message}`);
    }
  }
}

/** Writes the hosts' homes in a fresh folder, starts both servers and warms them up. */
async function setUp(ctx: ScenarioContext, profileDir: string | undefined, monitoring: readonly MonitoringFacility[]): Promise<Suite> {
  const root = scratch(ctx, monitoring.length === 0 ? 'svc' : 'svc-monitoring');
  let serverA: Child | undefined;
  let serverB: Child | undefined;
  try {
    const sinks = monitoring.length > 0 ? await startMonitoringSinks(monitoring) : undefined;
    const { a, b, run } = await writeHomes(root, {
      runLimit: ctx.opts.concurrency, digest: DIGESTS.indexOf(ctx.opts.digest as (typeof DIGESTS)[number]), ...(sinks ? { monitoring: sinks } : {}),
    });
    for (const r of run) await runCli(r.side, r.home, r.args);
    const { fixtures, opts } = ctx;
    if (existsSync(fixtures.largeFile)) linkSync(fixtures.largeFile, join(a.outDir, 'large.bin'));
    linkSet(fixtures.smallDir, fixtures.smallNames.slice(0, Math.min(opts.smallCount, fixtures.smallNames.length)), join(a.outDir, 'seq'));
    linkSet(fixtures.smallDir, fixtures.smallNames.slice(0, Math.min(opts.concurrentCount, fixtures.smallNames.length)), join(a.outDir, 'conc'));
    linkSet(fixtures.smallDir, fixtures.smallNames.slice(0, Math.min(MSEND_FILES, fixtures.smallNames.length)), join(a.outDir, 'msend'));
    const warmCount = Math.min(opts.warmup, fixtures.smallNames.length);
    if (warmCount > 0) linkSet(fixtures.smallDir, fixtures.smallNames.slice(0, warmCount), join(a.outDir, 'warm'));
    // Profiles of the servers and the transfer commands only, not of the set-up commands above.
    if (profileDir !== undefined) for (const h of [a, b]) setSvcNodeFlags(h, profileNodeFlags(profileDir));
    serverA = await startServer(a);
    serverB = await startServer(b);
    if (sinks) {
      sinks.scrapeWhileMeasured([a.metricsPort, b.metricsPort].filter((p): p is number => p !== undefined));
      const what = { metrics: 'metrics scraped every second', push: 'push every second', snmp: 'SNMP agent with level-4 traps' };
      ctx.log(`svc hosts run with monitoring on: ${monitoring.map((f) => what[f]).join(', ')}`);
    }
    const pair = sinks === undefined ? 'svc hosts' : 'svc hosts with monitoring';
    ctx.log(`${pair} running: hosta pid ${serverA.pid} (port ${a.ports.port}/${a.ports.sslPort}), hostb pid ${serverB.pid} (port ${b.ports.port}/${b.ports.sslPort})`);
    const suite = new Suite({ a, b, serverA, serverB }, profileDir, ctx.log, sinks);
    if (warmCount > 0) await suite.warmUp(ctx, warmCount);
    return suite;
  } catch (err) {
    await serverA?.stop('SIGKILL');
    await serverB?.stop('SIGKILL');
    throw err;
  }
}

export const SVC_SCENARIOS = { open };
