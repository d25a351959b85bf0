/**
 * The `sha512` baseline (issue 37 item 2): SHA-512 alone over the large file, one process
 * (hash-peer.ts), timed from "go" to the digest. `large-sha512` is judged against it, in the same
 * run: the transfer's time within 1.3 x of this one.
 */
import { fileURLToPath } from 'node:url';
import { Child } from '../lib/child.js';
import { Monitor } from '../lib/proc.js';
import { throughput, type ScenarioContext } from '../lib/scenario.js';
import type { ScenarioResult } from '../lib/types.js';
import type { HashPeerConfig } from './hash-peer.js';

const HASH_PEER = fileURLToPath(new URL('./hash-peer.js', import.meta.url));
const SETUP_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 10 * 60_000;

export async function sha512Alone(ctx: ScenarioContext): Promise<ScenarioResult> {
  const { largeFile, largeBytes } = ctx.fixtures;
  const cfg: HashPeerConfig = { file: largeFile, algorithm: 'sha512' };
  const hasher = new Child('sha512 alone', process.execPath, [HASH_PEER, JSON.stringify(cfg)]);
  try {
    await hasher.waitEvent('ready', SETUP_TIMEOUT_MS);
    const monitor = new Monitor();
    monitor.watch(hasher.pid, 'hasher');
    const t0 = performance.now();
    hasher.send('go');
    const done = await hasher.waitEvent('done', RUN_TIMEOUT_MS);
    const seconds = (performance.now() - t0) / 1000;
    const processes = monitor.finish();
    if (Number(done.bytes) !== largeBytes) throw new Error(`sha512 hashed ${String(done.bytes)} bytes, expected ${largeBytes}`);
    return throughput('sha512', { seconds, bytes: largeBytes, files: 1, processes });
  } finally {
    await hasher.stop();
  }
}
