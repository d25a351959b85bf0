/**
 * FileWatcher benchmark (issue 24 item 5):
 *
 *   npm run bench -- watch [--files N] [--size BYTES] [--parallel P] [--scan N] [--scan-rounds N] [--scan-only | --transfers-only]
 *
 * or, once built (npm run build && npx tsc -p tsconfig.bench.json), node dist/bench/watch/watch-bench.js [same options].
 *
 * 1. N files (default 10,000 of 4 KB) sent by `svc-r66client msend` from hosta to hostb (the rate to match).
 * 2. The same N files dropped at once (renamed in) into a directory watched by `svc-r66client spool
 *    -direct -limitParallel P`: the rate from the drop to the last "file sent", the rate from the
 *    first to the last send (without the detection delay of 4 x elapse), the watcher's peak RSS.
 *    Target: >= 80% of msend's rate.
 * 3. Scans (`--scan-rounds`, default 11) over a directory of `--scan` files (default 100,000) all
 *    already sent: CPU time in this process, the first scan after a start and the median of the next
 *    ones, without and with ignoreAlreadyUsed. Target: well under a second.
 *
 * `--scan-only` / `--transfers-only` run one part.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Monitor } from '../lib/proc.js';
import { writeHomes } from '../svc/homes.js';
import { ROOT, runCli, spawnCli, startServer } from '../svc/hosts.js';

/** The parts of the compiled watcher (dist/watch) the scan measurement uses: bench/ is built apart from src/. */
interface ScanWatcher {
  state: Map<string, Record<string, unknown>>;
  load(items: Iterable<[string, Record<string, unknown>]>): void;
  scan(): Promise<void>;
}
interface WatchModules {
  FileWatcher: new (config: Record<string, unknown>, deps: Record<string, unknown>) => ScanWatcher;
  newItem(file: string): Record<string, unknown>;
}

async function watchModules(): Promise<WatchModules> {
  const watcher = (await import(join(ROOT, 'dist/watch/watcher.js'))) as Pick<WatchModules, 'FileWatcher'>;
  const item = (await import(join(ROOT, 'dist/watch/item.js'))) as Pick<WatchModules, 'newItem'>;
  return { ...watcher, ...item };
}

let argv: string[] = [];

function arg(name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const n = i < 0 ? fallback : Number(argv[i + 1]);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} expects a positive integer, got ${argv[i + 1] ?? 'nothing'}`);
  return n;
}

let FILES = 10_000;
let SIZE = 4096;
let PARALLEL = 4;
let SCAN = 100_000;
let SCAN_ROUNDS = 11;
const ELAPSE = 500;

function log(line: string): void {
  process.stderr.write(`[watch-bench] ${line}\n`);
}

function writeFiles(dir: string, n: number, size: number): void {
  mkdirSync(dir, { recursive: true });
  const body = Buffer.alloc(size, 0x61);
  for (let i = 0; i < n; i++) {
    body.writeUInt32BE(i, 0);
    writeFileSync(join(dir, `f${String(i).padStart(6, '0')}.dat`), body);
  }
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function transfers(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'svc-watch-bench-'));
  try {
    const { a, b, run } = await writeHomes(root, { runLimit: 8, digest: 5 });
    for (const c of run) await runCli(c.side, c.home, c.args);
    const server = await startServer(b);
    try {
      // 1. msend
      writeFiles(join(a.outDir, 'seq'), FILES, SIZE);
      let t0 = performance.now();
      await runCli('client', a, ['msend', '-to', b.id, '-rule', 'send', '-file', 'seq/*.dat', '-quiet']);
      const msendRate = FILES / ((performance.now() - t0) / 1000);
      log(`msend: ${FILES} files of ${SIZE} B in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${msendRate.toFixed(1)} files/s`);
      // 2. the watcher
      const drop = join(root, 'drop');
      const staging = join(root, 'staging');
      mkdirSync(drop);
      writeFiles(staging, FILES, SIZE);
      // "watcher started" is an INFO line (msend above ran at the default level).
      process.env.SVC_LOG_LEVEL = 'info';
      const watcher = spawnCli('client', a, ['spool', join(a.confDir, 'client.xml'), '-to', b.id, '-rule', 'send', '-directory', drop,
        '-statusfile', join(root, 'watch', 'status.json'), '-stopfile', join(root, 'watch', 'stop'), '-direct', '-limitParallel', String(PARALLEL),
        '-elapse', String(ELAPSE)], 'svc-r66client spool');
      const monitor = new Monitor();
      const w = monitor.watch(watcher.pid, 'watcher');
      await waitUntil(() => watcher.stderr().includes('"msg":"watcher started"'), 30_000, 'the watcher started');
      t0 = performance.now();
      for (let i = 0; i < FILES; i++) {
        const name = `f${String(i).padStart(6, '0')}.dat`;
        renameSync(join(staging, name), join(drop, name));
      }
      // Files hostb holds beyond msend's: the watcher's sent ones (its log is not kept whole by Child).
      const sent = (): number => readdirSync(b.inDir).length - FILES;
      let first = 0;
      let told = performance.now();
      await waitUntil(() => {
        const n = sent();
        if (first === 0 && n > 0) first = performance.now();
        if (performance.now() - told > 10_000) {
          told = performance.now();
          log(`  ${n} sent after ${((told - t0) / 1000).toFixed(0)} s`);
        }
        return n >= FILES;
      }, 30 * 60_000, 'every file sent');
      const t1 = performance.now();
      const [usage] = monitor.finish();
      writeFileSync(join(root, 'watch', 'stop'), '');
      await watcher.exited;
      const rate = FILES / ((t1 - t0) / 1000);
      const sendRate = FILES / ((t1 - first) / 1000);
      log(`watcher: ${FILES} files from the drop in ${((t1 - t0) / 1000).toFixed(1)} s: ${rate.toFixed(1)} files/s (${(100 * rate / msendRate).toFixed(0)}% of msend); `
        + `first to last send ${sendRate.toFixed(1)} files/s (${(100 * sendRate / msendRate).toFixed(0)}%); detection ${((first - t0) / 1000).toFixed(1)} s; `
        + `peak RSS ${((usage?.peakRssBytes ?? w.usage().peakRssBytes) / 1048576).toFixed(0)} MB, CPU ${(usage?.cpuSeconds ?? 0).toFixed(1)} s`);
    } finally {
      await server.stop('SIGTERM');
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Scans over SCAN files already sent: the CPU each costs this process. The first scan after a start
 * stats every file; the next ones stat the sent files in slices (one scan out of ⌈n / 10,000⌉);
 * with ignoreAlreadyUsed they are not stat'ed at all.
 */
async function scanCost(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'svc-watch-scan-'));
  try {
    const dir = join(root, 'spool');
    writeFiles(dir, SCAN, 16);
    const { FileWatcher, newItem } = await watchModules();
    const orders = {
      newIds: () => Promise.reject(new Error('no order expected')), state: () => Promise.resolve('none'),
      submit: () => Promise.reject(new Error('no order expected')), run: () => Promise.reject(new Error('no order expected')),
      forget: () => Promise.resolve(), close: () => Promise.resolve(),
    };
    for (const ignoreAlreadyUsed of [false, true]) {
      const watcher = new FileWatcher({
        name: 'scan', to: ['hostb'], rule: 'send', statusFile: join(root, 'status.json'), directories: [dir], regex: undefined, recursive: false,
        elapse: 1000, submit: false, parallel: true, limitParallel: 0, info: 'noinfo', md5: false, block: 65536, noLog: false, waarpHosts: [],
        elapseWaarp: 5000, minimalSize: 0, ignoreAlreadyUsed, stopFile: join(root, 'stop'), logWarn: true,
      }, { orders, logger: pino({ level: 'silent' }) });
      const items: Array<[string, Record<string, unknown>]> = [];
      for (let i = 0; i < SCAN; i++) {
        const file = join(dir, `f${String(i).padStart(6, '0')}.dat`);
        const st = statSync(file);
        items.push([file, { ...newItem(file), size: st.size, lastTime: Math.trunc(st.mtimeMs), hash: 'x', used: true, status: 'DONE', specialId: BigInt(i + 1) }]);
      }
      watcher.load(items);
      const cpus: number[] = [];
      for (let round = 1; round <= SCAN_ROUNDS; round++) {
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        await watcher.scan();
        const used = process.cpuUsage(cpu);
        const s = (used.user + used.system) / 1e6;
        if (round > 1) cpus.push(s);
        log(`${ignoreAlreadyUsed ? 'ignoreAlreadyUsed, ' : ''}scan ${round} of ${SCAN} sent files: CPU ${s.toFixed(3)} s (user ${(used.user / 1e6).toFixed(3)}, sys ${(used.system / 1e6).toFixed(3)}), `
          + `wall ${((performance.now() - t0) / 1000).toFixed(2)} s, heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB`);
      }
      if (watcher.state.size !== SCAN) throw new Error(`the watcher lost files: ${watcher.state.size} of ${SCAN}`);
      cpus.sort((x, y) => x - y);
      log(`${ignoreAlreadyUsed ? 'ignoreAlreadyUsed: ' : ''}scans 2-${SCAN_ROUNDS} over ${SCAN} sent files: CPU median ${cpus[cpus.length >> 1]!.toFixed(3)} s, range ${cpus[0]!.toFixed(3)}-${cpus[cpus.length - 1]!.toFixed(3)} s`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Runs the benchmark with these command-line options; resolves with the exit code. */
export async function runWatchBench(args: string[]): Promise<number> {
  argv = args;
  try {
    FILES = arg('files', 10_000);
    SIZE = arg('size', 4096);
    PARALLEL = arg('parallel', 4);
    SCAN = arg('scan', 100_000);
    SCAN_ROUNDS = Math.max(2, arg('scan-rounds', 11));
  } catch (err) {
    process.stderr.write(`bench watch: ${(err as Error).message}\n`);
    return 2;
  }
  const only = argv.includes('--scan-only') ? 'scan' : argv.includes('--transfers-only') ? 'transfers' : 'both';
  if (only !== 'scan') await transfers();
  if (only !== 'transfers') await scanCost();
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await runWatchBench(process.argv.slice(2));
}
