/**
 * The baselines: raw-tcp, raw-copy and raw-small, each a receiver and a sender process (peer.ts).
 * The clock runs from "go" (both processes up and connected) to the receiver's "done" (last byte
 * written, file closed): the ceiling of data movement, without process start-up.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Child } from '../lib/child.js';
import { Monitor } from '../lib/proc.js';
import { rate, scratch, throughput, type Measured, type ScenarioContext } from '../lib/scenario.js';
import type { ScenarioResult } from '../lib/types.js';
import type { PeerConfig } from './peer.js';

const PEER = fileURLToPath(new URL('./peer.js', import.meta.url));
/** Generous: a 1 GiB baseline takes seconds; minutes mean something is stuck. */
const RUN_TIMEOUT_MS = 10 * 60_000;
const SETUP_TIMEOUT_MS = 30_000;

function peer(name: string, cfg: PeerConfig): Child {
  return new Child(name, process.execPath, [PEER, JSON.stringify(cfg)]);
}

interface PairResult extends Measured {
  received: Record<string, unknown>;
}

/** Runs one receiver + sender pair and measures it. */
export async function runPair(recvCfg: Omit<PeerConfig, 'role'>, sendCfg: Omit<PeerConfig, 'role' | 'port'>): Promise<PairResult> {
  const receiver = peer('raw receiver', { role: 'receive', ...recvCfg });
  let sender: Child | undefined;
  try {
    const ready = await receiver.waitEvent('ready', SETUP_TIMEOUT_MS);
    sender = peer('raw sender', { role: 'send', ...sendCfg, port: Number(ready.port) });
    await sender.waitEvent('ready', SETUP_TIMEOUT_MS);
    const monitor = new Monitor();
    monitor.watch(sender.pid, 'sender');
    monitor.watch(receiver.pid, 'receiver');
    const t0 = performance.now();
    sender.send('go');
    const done = await receiver.waitEvent('done', RUN_TIMEOUT_MS);
    const seconds = (performance.now() - t0) / 1000;
    await sender.waitEvent('done', SETUP_TIMEOUT_MS);
    const processes = monitor.finish();
    return { seconds, bytes: Number(done.bytes), files: Number(done.files), processes, received: done };
  } finally {
    await Promise.all([receiver.stop(), sender?.stop()]);
  }
}

function check(what: string, got: number, want: number): void {
  if (got !== want) throw new Error(`${what}: expected ${want}, got ${got}`);
}

export async function rawTcp(ctx: ScenarioContext): Promise<ScenarioResult> {
  const bytes = ctx.opts.largeBytes;
  const m = await runPair({ mode: 'mem' }, { mode: 'mem', bytes });
  check('raw-tcp bytes received', m.bytes, bytes);
  return throughput('raw-tcp', m);
}

export async function rawCopy(ctx: ScenarioContext): Promise<ScenarioResult> {
  const target = join(scratch(ctx, 'raw-copy'), 'large.bin');
  const { largeFile, largeBytes } = ctx.fixtures;
  const m = await runPair({ mode: 'file', file: target, sync: ctx.opts.sync }, { mode: 'file', file: largeFile });
  check('raw-copy bytes written', statSync(target).size, largeBytes);
  return throughput('raw-copy', m);
}

export async function rawSmall(ctx: ScenarioContext): Promise<ScenarioResult> {
  const dir = scratch(ctx, 'raw-small');
  const names = ctx.fixtures.smallNames.slice(0, ctx.opts.smallCount);
  const m = await runPair({ mode: 'small', dir, sync: ctx.opts.sync }, { mode: 'small', dir: ctx.fixtures.smallDir, names });
  check('raw-small files acknowledged', m.files, names.length);
  return rate('raw-small', m);
}
