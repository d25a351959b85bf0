/**
 * The SHA-512 baseline's process (issue 37 item 2): hashes one file with Node's crypto and nothing
 * else, the best a single process does with the same hash the svc hosts use.
 *
 *   node hash-peer.js '<json HashPeerConfig>'
 *
 * Same conversation with the harness as peer.ts: {"event":"ready"} once the file is open, "go" on
 * stdin starts the clock, {"event":"done","bytes":...,"digest":...} at the end; the process stays
 * until stdin closes so the harness can read its /proc figures.
 *
 * The file is read in 1 MiB chunks into two buffers in turn: the next read runs in the thread pool
 * while the current chunk is hashed, so the figure is the hash's own speed (the file is in the
 * page cache, as it is for the svc transfer), not the hash plus the reads one after the other.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export interface HashPeerConfig {
  file: string;
  /** Node's name of the hash: 'sha512'. */
  algorithm: string;
}

const CHUNK = 1024 * 1024;

function emit(event: string, data: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ event, ...data })}\n`);
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2] ?? '{}') as HashPeerConfig;
  const lines = createInterface({ input: process.stdin });
  const closed = once(lines, 'close');
  const go = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => line.trim() === 'go' && resolve());
    lines.on('close', () => reject(new Error('stdin closed before go')));
  });
  go.catch(() => undefined);
  const fh = await open(cfg.file, 'r');
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  emit('ready');
  await go;
  const hash = createHash(cfg.algorithm);
  let bytes = 0;
  let turn = 0;
  let reading = fh.read(buffers[0] as Buffer, 0, CHUNK, 0);
  for (;;) {
    const { bytesRead, buffer } = await reading;
    if (bytesRead === 0) break;
    const at = bytes + bytesRead;
    turn ^= 1;
    reading = fh.read(buffers[turn] as Buffer, 0, CHUNK, at);
    hash.update(buffer.subarray(0, bytesRead));
    bytes = at;
  }
  const digest = hash.digest('hex');
  await fh.close();
  const u = process.resourceUsage();
  emit('done', { bytes, files: 1, digest, cpuSeconds: (u.userCPUTime + u.systemCPUTime) / 1e6 });
  await closed;
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`hash-peer: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
