/**
 * Real hosts in one process for transfer tests: each has a temporary home (in/out/work/arch), its
 * own SQLite database, a partner table knowing every host, a listener on port 0, a connection
 * pool, the task registry and a TransferEngine. Rules are added to each host's database.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { DirectoryConfig, LimitConfig } from '../../src/config/index.js';
import { Digest, type DigestAlgorithm } from '../../src/model/digest.js';
import { ErrorCode } from '../../src/model/error-code.js';
import type { Host } from '../../src/model/host.js';
import { TransferMode, type Rule } from '../../src/model/rule.js';
import { UpdatedInfo, type TransferKey, type TransferRecord } from '../../src/model/transfer.js';
import { Blacklist } from '../../src/net/blacklist.js';
import type { NetContext } from '../../src/net/context.js';
import { RequestHandlers } from '../../src/net/handlers.js';
import { R66Listener } from '../../src/net/listener.js';
import { MemoryPartnerDirectory, type LocalIdentity, type PartnerDirectory } from '../../src/net/partner.js';
import { ConnectionPool } from '../../src/net/pool.js';
import { openStore, parseJdbcUrl, type Store } from '../../src/store/index.js';
import { createTaskRegistry, type EngineHooks, type TaskRegistry } from '../../src/tasks/index.js';
import { engineWithOrders, type TransferOrders } from '../../src/operations/index.js';
import { TransferScheduler, type TransferEngine } from '../../src/transfer/index.js';
import { hostFiles, type HostFiles, type StorageKind } from './host-files.js';
import { waitFor } from './wait.js';

export const silent = pino({ level: process.env.SVC_TEST_LOG ?? 'silent' });

export function limits(over: Partial<LimitConfig> = {}): LimitConfig {
  return {
    serverThread: 8, clientThread: 80, memoryLimit: 1 << 30, sessionLimit: 0, globalLimit: 0, delayLimit: 1000, runLimit: 1000,
    delayCommand: 100, delayRetry: 1000, timeoutCon: 30_000, blockSize: 65536, gapRestart: 30, useNio: false, useCpuLimit: false,
    useJdkCpuLimit: false, cpuLimit: 1, connLimit: 0, lowCpuLimit: 0, highCpuLimit: 0, percentDecrease: 0.01, delayThrottle: 1_000_000,
    limitLowBandwidth: 1 << 20, digest: 2, useThrift: 0, checkVersion: true, globalDigest: true, localDigest: true, compression: false,
    ...over,
  };
}

export function rule(idRule: string, mode: TransferMode, over: Partial<Rule> = {}): Rule {
  return { idRule, hostIds: [], mode, recvPath: '', sendPath: '', archivePath: '', workPath: '', rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0, ...over };
}

export interface HostOptions {
  digest?: DigestAlgorithm;
  compression?: boolean;
  limits?: Partial<LimitConfig>;
  globalDigest?: boolean;
  /** Blocks between two RANK saves (default 16). */
  rankSaveBlocks?: number;
  /** The alive window of running rows (src/transfer/alive.ts; default max(60 s, 2 x timeoutcon)). */
  aliveWindowMs?: number;
  /** Task registry (default: the built-in types); tests of plug-ins pass their own. */
  tasks?: TaskRegistry;
  /** Extra task hooks (RESTART's restarter). */
  hooks?: Pick<EngineHooks, 'restarter' | 'snmp'>;
  /** Runs a scheduler of submitted transfers (TRANSFER, RESCHEDULE, asend) every `periodMs` (default 50). */
  scheduler?: boolean | { periodMs: number };
  /**
   * Partner entries read from the host's HOSTS table on each lookup, as a server's directory does
   * (the passwords still come from `directory`); default: only the in-memory `directory`.
   */
  partnersFromStore?: boolean;
  /** The SQLite file of the host's database (default `db.sqlite` in its home). */
  databaseFile?: string;
  /**
   * Where the transfers' files live (default `local`): `memory` gives the engine a MemoryFileSystem,
   * and the in/out/work/arch directories are made there, not on disk (host-files.ts).
   */
  storage?: StorageKind;
  /** Large files' global hashes on a hashing thread (src/transfer/hash/global-hash.ts); default as a server: SVC_R66_HASH_THREAD, else on with more than two cores. */
  hashThread?: boolean;
}

export interface TestHost {
  id: string;
  home: string;
  dirs: DirectoryConfig;
  store: Store;
  engine: TransferEngine<TransferOrders>;
  pool: ConnectionPool;
  listener: R66Listener;
  directory: MemoryPartnerDirectory;
  /** What this host announces (tests may change it after authentication). */
  identity: LocalIdentity;
  /** Present with the `scheduler` option. */
  scheduler: TransferScheduler | null;
  /** The transfer files (HostOptions.storage): put the files to send and read those received through it. */
  files: HostFiles;
  addRule(r: Rule): Promise<void>;
  row(key: Omit<TransferKey, 'ownerReq'>): Promise<TransferRecord | undefined>;
  close(): Promise<void>;
}

function hostEntry(hostId: string, port: number): Host {
  return { hostId, address: '127.0.0.1', port, isSsl: false, hostKey: Buffer.from('x'), adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0 };
}

const PASSWORDS = new Map<string, Buffer>();
function passwordOf(id: string): Buffer {
  let p = PASSWORDS.get(id);
  if (!p) PASSWORDS.set(id, (p = Buffer.from(`password of ${id}`)));
  return p;
}

export async function makeHost(id: string, opts: HostOptions = {}): Promise<TestHost> {
  const home = await mkdtemp(path.join(tmpdir(), `svc-tr-${id}-`));
  const sub = { in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' };
  const files = hostFiles(opts.storage ?? 'local');
  await files.makeDirectories(Object.values(sub).map((d) => path.join(home, d)));
  const dirs: DirectoryConfig = {
    serverHome: home, virtual: sub,
    in: path.join(home, 'in'), out: path.join(home, 'out'), arch: path.join(home, 'arch'), work: path.join(home, 'work'), conf: path.join(home, 'conf'),
  };
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${opts.databaseFile ?? path.join(home, 'db.sqlite')}`), { hostId: id });
  await store.initSchema({ hostId: id });
  const directory = new MemoryPartnerDirectory([{ host: hostEntry(id, 0), password: passwordOf(id) }]);
  const handlers = new RequestHandlers();
  const identity: LocalIdentity = { hostId: id, digest: opts.digest ?? Digest.MD5, globalDigest: opts.globalDigest ?? true, compression: opts.compression ?? false, proxified: false };
  const partners: PartnerDirectory = !opts.partnersFromStore ? directory : {
    async find(hostId) {
      const [host, entry] = [await store.hosts.get(hostId), await directory.find(hostId)];
      return host === undefined || entry === undefined ? undefined : { host, password: entry.password };
    },
    host: (hostId) => store.hosts.get(hostId),
  };
  const ctx: NetContext = {
    identity, directory: partners, handlers, blacklist: new Blacklist({ enabled: false, durationMs: 1000 }), timeoutConMs: 30_000, reuseAuthentication: true, logger: silent,
  };
  const pool = new ConnectionPool(ctx);
  const engine = engineWithOrders({
    identity, directories: dirs, limits: limits(opts.limits), store, pool, handlers, tasks: opts.tasks ?? createTaskRegistry(), logger: silent, rankSaveBlocks: opts.rankSaveBlocks ?? 16,
    ...(opts.hooks ? { hooks: opts.hooks } : {}), ...(files.engineFiles ? { files: files.engineFiles } : {}),
    ...(opts.aliveWindowMs !== undefined ? { aliveWindowMs: opts.aliveWindowMs } : {}),
    ...(opts.hashThread !== undefined ? { hashThread: opts.hashThread } : {}),
  });
  const listener = new R66Listener(ctx, { port: 0 });
  await listener.start();
  await store.hosts.upsert(hostEntry(id, listener.port));
  let scheduler: TransferScheduler | null = null;
  if (opts.scheduler) {
    const l = limits(opts.limits);
    const periodMs = typeof opts.scheduler === 'object' ? opts.scheduler.periodMs : 50;
    scheduler = new TransferScheduler({ engine, runner: store.runner, ownIds: [id], ownerId: id, periodMs, runLimit: l.runLimit, retryDelayMs: l.delayRetry, logger: silent });
    await scheduler.start();
  }
  return {
    id, home, dirs, store, engine, pool, listener, directory, identity, scheduler, files,
    addRule: (r) => store.rules.upsert(r),
    row: (key) => store.runner.get({ ...key, ownerReq: id }),
    async close() {
      if (scheduler) await scheduler.stop();
      await engine.close();
      await pool.close();
      await listener.stop();
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** hosta and hostb (each with its options), each knowing the other. */
export async function makeHostPair(optsA: HostOptions = {}, optsB: HostOptions = {}): Promise<{ a: TestHost; b: TestHost }> {
  const a = await makeHost('hosta', optsA);
  let b: TestHost | undefined;
  try {
    b = await makeHost('hostb', optsB);
    await introduce(a, b);
    return { a, b };
  } catch (err) {
    await closeHosts(a, b);
    throw err;
  }
}

/**
 * hosta and hostb hashing with SHA-256, with the rules `send`, `recv` and `smd5` (send with block
 * digests), made before the enclosing describe block's tests and closed after them; their
 * transfer files in `storage` (default the hosts' file systems); `more`: other options of both.
 */
export function sha256PairForBlock(storage: StorageKind = 'local', more: Pick<HostOptions, 'hashThread'> = {}): { readonly a: TestHost; readonly b: TestHost } {
  const pair = {} as { a: TestHost; b: TestHost };
  beforeAll(async () => {
    Object.assign(pair, await makeHostPair({ digest: Digest.SHA256, storage, ...more }, { digest: Digest.SHA256, storage, ...more }));
    await addRules([pair.a, pair.b], rule('send', TransferMode.SENDMODE), rule('recv', TransferMode.RECVMODE), rule('smd5', TransferMode.SENDMD5MODE));
  });
  afterAll(() => closeHosts(pair.a, pair.b));
  return pair;
}

/** The content of the file received as `name` in `dir` (the receiver may prefix the transfer id). */
export async function receivedContent(dir: string, name: string): Promise<Buffer> {
  const got = (await readdir(dir)).find((f) => f === name || f.endsWith(`_${name}`));
  if (got === undefined) throw new Error(`${name} not received in ${dir}`);
  return readFile(path.join(dir, got));
}

/**
 * Restarts the stopped transfer `ref` of requester `a` and runs a scheduler until its row is DONE.
 * Returns that row and where each progress report of the resumed attempt said it started (bytes):
 * the first above 0 means it resumed from a kept rank.
 */
export async function resumeWithScheduler(a: TestHost, ref: { specialId: bigint; requester: string; requested: string }): Promise<{ done: TransferRecord; resumedFrom: number[] }> {
  const restarted = await a.engine.restart(ref);
  if (restarted.code !== ErrorCode.PreProcessingOk) throw new Error(`restart refused: ${restarted.code.char}`);
  const resumedFrom: number[] = [];
  a.engine.on('progress', (p) => resumedFrom.push(p.rank * p.blockSize - p.bytes));
  const scheduler = new TransferScheduler({ engine: a.engine, runner: a.store.runner, ownIds: [a.id], ownerId: a.id, periodMs: 50, runLimit: 10, retryDelayMs: 1000, logger: silent });
  await scheduler.start();
  try {
    const done = await waitFor(async () => {
      const r = await a.row(ref);
      return r?.updatedInfo === UpdatedInfo.DONE ? r : undefined;
    });
    return { done, resumedFrom };
  } finally {
    await scheduler.stop();
  }
}

/** Closes hosts one after the other; those a failed set-up never made (undefined) are skipped. */
export async function closeHosts(...hosts: Array<TestHost | undefined>): Promise<void> {
  for (const h of hosts) await h?.close();
}

/** Adds the same rules to every host. */
export async function addRules(hosts: TestHost[], ...rules: Rule[]): Promise<void> {
  for (const h of hosts) for (const r of rules) await h.addRule(r);
}

/** Makes every host know every other (partner tables and HOSTS rows). */
export async function introduce(...hosts: TestHost[]): Promise<void> {
  for (const a of hosts) {
    for (const b of hosts) {
      if (a === b) continue;
      const entry = hostEntry(b.id, b.listener.port);
      a.directory.set({ host: entry, password: passwordOf(b.id) });
      await a.store.hosts.upsert(entry);
    }
  }
}

/** Gives `partner` the SYSTEM (admin) role in `host`'s partner table (RESTART needs it). */
export async function grantSystemRole(host: TestHost, partner: TestHost): Promise<void> {
  const entry = { ...hostEntry(partner.id, partner.listener.port), adminRole: true };
  host.directory.set({ host: entry, password: passwordOf(partner.id) });
  await host.store.hosts.upsert(entry);
}

/** Deterministic, not very compressible bytes (xorshift), fast to generate. */
export function patternBytes(size: number, seed = 1): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  let i = 0;
  for (; i + 4 <= size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buf.writeUInt32LE(x >>> 0, i);
  }
  for (; i < size; i++) buf[i] = i & 0xff;
  return buf;
}
