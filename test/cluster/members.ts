/**
 * Cluster members in one process for tests: each has its own store connection (as a separate
 * process would), engine, connection pool, listener on port 0 and scheduler with a ClusterMember,
 * all with the same host id, one database and one shared home (shared directories); and the
 * set-up the cluster tests share (clusterSetup: database with hosta's schema and rule, partners,
 * shared home; submitFiles: TOSUBMIT rows written without running them).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClusterMember } from '../../src/cluster/member.js';
import type { DirectoryConfig, LimitConfig } from '../../src/config/index.js';
import { Digest } from '../../src/model/digest.js';
import type { Host } from '../../src/model/host.js';
import { TransferMode } from '../../src/model/rule.js';
import { Blacklist } from '../../src/net/blacklist.js';
import type { NetContext } from '../../src/net/context.js';
import { RequestHandlers } from '../../src/net/handlers.js';
import { R66Listener } from '../../src/net/listener.js';
import { MemoryPartnerDirectory, type LocalIdentity } from '../../src/net/partner.js';
import { ConnectionPool } from '../../src/net/pool.js';
import { openStore, type DbConnectionSettings, type Store } from '../../src/store/index.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import { engineWithOrders } from '../../src/operations/index.js';
import { TransferScheduler, type TransferEngine } from '../../src/transfer/index.js';
import type { TestDatabase, TestDialect } from '../helpers/databases.js';
import { closeHosts, limits, makeHost, rule, silent, type TestHost } from '../helpers/hosts.js';

export interface MemberOptions {
  takeoverAfterMs?: number;
  heartbeatMs?: number;
  runLimit?: number;
  /** Engine limits over test/helpers/hosts.ts limits() (bandwidth: globalLimit, sessionLimit). */
  limits?: Partial<LimitConfig>;
}

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

/** The partner reaches hosta (one logical host) at `port`. */
export function knowsHostaAt(partner: TestHost, port: number): void {
  partner.directory.set({ host: hostEntry('hosta', port), password: passwordOf('hosta') });
}

export interface SharedHome {
  dirs: DirectoryConfig;
  remove: () => Promise<void>;
}

/** A home with in/out/work/arch shared by the members. */
export async function sharedHome(): Promise<SharedHome> {
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
export async function makeMember(hostId: string, settings: DbConnectionSettings, dirs: DirectoryConfig, partners: TestHost[], opts: MemberOptions = {}): Promise<Member> {
  const store = await openStore(settings, { hostId });
  const directory = new MemoryPartnerDirectory([{ host: hostEntry(hostId, 0), password: passwordOf(hostId) }]);
  for (const p of partners) directory.set({ host: hostEntry(p.id, p.listener.port), password: passwordOf(p.id) });
  const handlers = new RequestHandlers();
  const identity: LocalIdentity = { hostId, digest: Digest.MD5, globalDigest: true, compression: false, proxified: false };
  const ctx: NetContext = { identity, directory, handlers, blacklist: new Blacklist({ enabled: false, durationMs: 1000 }), timeoutConMs: 30_000, reuseAuthentication: true, logger: silent };
  const pool = new ConnectionPool(ctx);
  const l = limits(opts.limits);
  const engine = engineWithOrders({ identity, directories: dirs, limits: l, store, pool, handlers, tasks: createTaskRegistry(), logger: silent });
  const listener = new R66Listener(ctx, { port: 0 });
  await listener.start();
  const { runLimit, limits: _l, ...timing } = opts;
  const cluster = new ClusterMember({ hostId, ownIds: [hostId], store: () => store, logger: silent, clean: () => store.runner.markFinishedAsDone(hostId), ...timing });
  await cluster.start();
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

/** What the cluster tests share: hosta's database (schema, rule `send`), partners knowing `send`, a shared home. */
export interface ClusterSetup {
  db: TestDatabase;
  partners: TestHost[];
  home: SharedHome;
  /** Members made with member() (closed by teardown). */
  members: Member[];
  /** One member of hosta on the set-up's database (settings overridable: a proxy's port), kept for teardown. */
  member(opts?: MemberOptions & { settings?: DbConnectionSettings }): Promise<Member>;
  teardown(): Promise<void>;
}

/** The set-up for `dbc`, or undefined when its server is unreachable (the test skips). */
export async function clusterSetup(dbc: TestDialect, partnerIds: string[] = ['hostb']): Promise<ClusterSetup | undefined> {
  const db = await dbc.create();
  if (db === undefined) return undefined;
  const init = await openStore(db.settings, { hostId: 'hosta' });
  await init.initSchema({ hostId: 'hosta' });
  await init.rules.upsert(rule('send', TransferMode.SENDMODE));
  await init.close();
  const partners: TestHost[] = [];
  for (const id of partnerIds) {
    const p = await makeHost(id);
    await p.addRule(rule('send', TransferMode.SENDMODE));
    partners.push(p);
  }
  const home = await sharedHome();
  const members: Member[] = [];
  return {
    db, partners, home, members,
    async member(opts = {}) {
      const { settings, ...rest } = opts;
      const m = await makeMember('hosta', settings ?? db.settings, home.dirs, partners, rest);
      members.push(m);
      return m;
    },
    async teardown() {
      for (const m of members) await m.close().catch(() => undefined);
      await closeHosts(...partners);
      await home.remove();
      await db.drop();
    },
  };
}

/**
 * Writes `files` into the shared out directory and submits each to `partner` (rule `send`) as a
 * TOSUBMIT row, with a member whose scheduler and cluster job are stopped (it only writes rows).
 * Returns the transfer ids in order.
 */
export async function submitFiles(setup: ClusterSetup, files: Array<{ name: string; bytes: Buffer | string }>, partner = 'hostb'): Promise<bigint[]> {
  const submitter = await makeMember('hosta', setup.db.settings, setup.home.dirs, setup.partners);
  try {
    await submitter.scheduler.stop();
    await submitter.cluster.stop();
    const ids: bigint[] = [];
    for (const f of files) {
      await writeFile(path.join(setup.home.dirs.out, f.name), f.bytes);
      ids.push(await submitter.engine.submitLater({ partner, rule: 'send', file: f.name }));
    }
    return ids;
  } finally {
    await submitter.close();
  }
}
