/**
 * Cluster members in one process for tests: each has its own store connection (as a separate
 * process would), engine, connection pool, listener on port 0 and scheduler with a ClusterMember,
 * all with the same host id, one database and one shared home (shared directories).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClusterMember } from '../../src/cluster/member.js';
import type { DirectoryConfig } from '../../src/config/index.js';
import { Digest } from '../../src/model/digest.js';
import type { Host } from '../../src/model/host.js';
import { Blacklist } from '../../src/net/blacklist.js';
import type { NetContext } from '../../src/net/context.js';
import { RequestHandlers } from '../../src/net/handlers.js';
import { R66Listener } from '../../src/net/listener.js';
import { MemoryPartnerDirectory, type LocalIdentity } from '../../src/net/partner.js';
import { ConnectionPool } from '../../src/net/pool.js';
import { openStore, type DbConnectionSettings, type Store } from '../../src/store/index.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import { TransferEngine, TransferScheduler } from '../../src/transfer/index.js';
import { limits, silent, type TestHost } from '../helpers/hosts.js';

export interface Member {
  store: Store;
  engine: TransferEngine;
  listener: R66Listener;
  cluster: ClusterMember;
  scheduler: TransferScheduler;
  close(): Promise<void>;
}

/** What test/helpers/hosts.ts gives a host as password (`password of <id>`). */
export const passwordOf = (id: string): Buffer => Buffer.from(`password of ${id}`);

export function hostEntry(hostId: string, port: number): Host {
  return { hostId, address: '127.0.0.1', port, isSsl: false, hostKey: Buffer.from('x'), adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0 };
}

/** A home with in/out/work/arch shared by the members. */
export async function sharedHome(): Promise<{ dirs: DirectoryConfig; remove: () => Promise<void> }> {
  const home = await mkdtemp(path.join(tmpdir(), 'svc-cluster-'));
  const sub = { in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' };
  for (const d of Object.values(sub)) await mkdir(path.join(home, d), { recursive: true });
  const dirs: DirectoryConfig = {
    serverHome: home, virtual: sub,
    in: path.join(home, 'in'), out: path.join(home, 'out'), arch: path.join(home, 'arch'), work: path.join(home, 'work'), conf: path.join(home, 'conf'),
  };
  return { dirs, remove: () => rm(home, { recursive: true, force: true }) };
}

/** One member of `hostId` on the database of `settings`, knowing `partners`. */
export async function makeMember(hostId: string, settings: DbConnectionSettings, dirs: DirectoryConfig, partners: TestHost[], opts: { takeoverAfterMs?: number; heartbeatMs?: number; runLimit?: number } = {}): Promise<Member> {
  const store = await openStore(settings, { hostId });
  const directory = new MemoryPartnerDirectory([{ host: hostEntry(hostId, 0), password: passwordOf(hostId) }]);
  for (const p of partners) directory.set({ host: hostEntry(p.id, p.listener.port), password: passwordOf(p.id) });
  const handlers = new RequestHandlers();
  const identity: LocalIdentity = { hostId, digest: Digest.MD5, globalDigest: true, compression: false, proxified: false };
  const ctx: NetContext = { identity, directory, handlers, blacklist: new Blacklist({ enabled: false, durationMs: 1000 }), timeoutConMs: 30_000, reuseAuthentication: true, logger: silent };
  const pool = new ConnectionPool(ctx);
  const engine = new TransferEngine({ identity, directories: dirs, limits: limits(), store, pool, handlers, tasks: createTaskRegistry(), logger: silent });
  const listener = new R66Listener(ctx, { port: 0 });
  await listener.start();
  const { runLimit, ...timing } = opts;
  const cluster = new ClusterMember({ hostId, ownIds: [hostId], store: () => store, logger: silent, ...timing });
  await cluster.start();
  const l = limits();
  const scheduler = new TransferScheduler({ engine, runner: store.runner, ownIds: [hostId], ownerId: hostId, periodMs: 50, runLimit: runLimit ?? l.runLimit, retryDelayMs: l.delayRetry, logger: silent, claim: cluster });
  await scheduler.start();
  return {
    store, engine, listener, cluster, scheduler,
    async close() {
      await scheduler.stop();
      await cluster.stop();
      await engine.close();
      await pool.close();
      await listener.stop();
      await store.close();
    },
  };
}
