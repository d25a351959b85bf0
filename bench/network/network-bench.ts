/**
 * Network tasks benchmark (issue 25 item 5), run on its own:
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist/bench/network/network-bench.js [--size BYTES]
 *
 * One file (default 1 GiB) through each network task's code path against the real servers of the
 * tests on loopback: FTP put and get (proftpd, passive), S3 put (multipart) and get (s3rver in a
 * child process), one ICAP scan (c-icap + clamav). For each: throughput and the growth of this
 * process's RSS over its level before the run (target < 64 MB: files are streamed).
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../svc/hosts.js';
import { FTP_PASSWORD, FTP_USER, icapAvailable, proftpdAvailable, S3_ACCESS_KEY, S3_SECRET_KEY, startIcap, startProftpd, startS3rverProcess } from './servers.js';

// The compiled modules under test (dist/), typed here by what the bench calls: bench/ builds apart from src/.
type Log = (level: string, msg: string) => void;
interface Modules {
  runFtp(o: Record<string, unknown>, log: Log): Promise<void>;
  s3Client(o: Record<string, unknown>): { destroy(): void };
  ensureBucket(c: unknown, bucket: string): Promise<boolean>;
  uploadObject(c: unknown, bucket: string, key: string, path: string): Promise<void>;
  downloadObject(c: unknown, bucket: string, key: string, path: string): Promise<void>;
  parseIcapOptions(words: string[]): Record<string, unknown>;
  icapScan(o: Record<string, unknown>, log: Log): Promise<{ status: number; message: string }>;
}

async function modules(): Promise<Modules> {
  const load = async (p: string): Promise<Record<string, unknown>> => (await import(join(ROOT, 'dist/tasks/network', p))) as Record<string, unknown>;
  return { ...(await load('ftp-session.js')), ...(await load('s3-client.js')), ...(await load('icap-options.js')), ...(await load('icap-scan.js')) } as unknown as Modules;
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

const SIZE = arg('size', 1024 ** 3);
const MB = 1024 * 1024;
const quiet: Log = () => undefined;

function log(line: string): void {
  process.stderr.write(`[network-bench] ${line}\n`);
}

/** Writes `size` bytes of a non-trivial pattern, 1 MiB at a time. */
function makeFile(path: string, size: number): void {
  const block = Buffer.alloc(MB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + (i >> 9)) & 0xff;
  const fd = openSync(path, 'w');
  try {
    for (let done = 0; done < size; done += block.length) writeSync(fd, block, 0, Math.min(block.length, size - done));
  } finally {
    closeSync(fd);
  }
}

interface Row {
  name: string;
  seconds: number;
  mbPerSecond: number;
  rssGrowthMb: number;
  note: string;
}

/** Runs `op`, sampling RSS every 20 ms; growth is measured against the RSS just before. */
async function measure(name: string, op: () => Promise<string | void>): Promise<Row> {
  global.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const t0 = performance.now();
  let note = '';
  try {
    note = (await op()) ?? '';
  } catch (err) {
    note = `FAILED: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - t0) / 1000;
  peak = Math.max(peak, process.memoryUsage.rss());
  const row = { name, seconds, mbPerSecond: SIZE / MB / seconds, rssGrowthMb: (peak - base) / MB, note };
  log(`${name}: ${row.mbPerSecond.toFixed(1)} MB/s, RSS +${row.rssGrowthMb.toFixed(1)} MB ${note}`);
  return row;
}

async function main(): Promise<void> {
  const m = await modules();
  const work = mkdtempSync(join(tmpdir(), 'svc-net-bench-'));
  const rows: Row[] = [];
  try {
    const file = join(work, 'big.bin');
    log(`writing ${SIZE} bytes`);
    makeFile(file, SIZE);
    if (proftpdAvailable()) {
      const ftp = await startProftpd();
      try {
        const o = { file, host: '127.0.0.1', port: ftp.port, user: FTP_USER, password: FTP_PASSWORD, passive: true, tls: 'no', command: 'put' };
        rows.push(await measure('FTP put (passive)', () => m.runFtp(o, quiet)));
        // get fetches the remote file of the same base name: into another directory.
        const back = join(work, 'back');
        mkdirSync(back);
        rows.push(await measure('FTP get (passive)', () => m.runFtp({ ...o, file: join(back, 'big.bin'), command: 'get' }, quiet)));
        rmSync(back, { recursive: true, force: true });
      } finally {
        await ftp.stop();
      }
    } else log('proftpd not installed: FTP skipped');
    const s3 = await startS3rverProcess();
    try {
      const client = m.s3Client({ url: s3.url, accessKey: S3_ACCESS_KEY, secretKey: S3_SECRET_KEY, bucket: 'bench' });
      await m.ensureBucket(client, 'bench');
      rows.push(await measure('S3 put (multipart)', () => m.uploadObject(client, 'bench', 'big.bin', file)));
      rows.push(await measure('S3 get', () => m.downloadObject(client, 'bench', 'big.bin', join(work, 'back-s3.bin'))));
      rmSync(join(work, 'back-s3.bin'), { force: true });
      client.destroy();
    } finally {
      await s3.stop();
    }
    if (icapAvailable()) {
      const icap = await startIcap();
      try {
        const o = m.parseIcapOptions(['-file', file, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-blockSize', '65536', '-timeout', '600000']);
        rows.push(await measure('ICAP scan', async () => `status ${(await m.icapScan(o, quiet)).status}`));
      } finally {
        await icap.stop();
      }
    } else log('c-icap not installed: ICAP skipped');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`\nnetwork tasks, ${(SIZE / MB).toFixed(0)} MiB each (target: RSS growth < 64 MB)\n`);
  for (const r of rows) {
    const verdict = r.rssGrowthMb < 64 && !r.note.startsWith('FAILED') ? 'ok' : 'MISS';
    process.stdout.write(`${r.name.padEnd(22)} ${r.mbPerSecond.toFixed(1).padStart(8)} MB/s ${r.seconds.toFixed(1).padStart(7)} s  RSS +${r.rssGrowthMb.toFixed(1).padStart(5)} MB  ${verdict} ${r.note}\n`);
  }
  if (rows.some((r) => r.note.startsWith('FAILED') || r.rssGrowthMb >= 64)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`network-bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
