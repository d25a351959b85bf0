/**
 * Two R66 hosts in one process for connection-layer tests: each has an identity, a partner table
 * that knows both, its handlers (message and information) and, on demand, a listener.
 */
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Digest } from '../../src/model/digest.js';
import type { Notify } from '../../src/model/notifications.js';
import type { Host } from '../../src/model/host.js';
import { TransferMode, type Rule } from '../../src/model/rule.js';
import { Blacklist } from '../../src/net/blacklist.js';
import { handleTest } from '../../src/net/commands/test-message.js';
import { informationHandler } from '../../src/net/commands/information.js';
import { baseJsonCommandHandler } from '../../src/net/commands/json-base.js';
import type { NetContext } from '../../src/net/context.js';
import { RequestHandlers } from '../../src/net/handlers.js';
import { R66Listener } from '../../src/net/listener.js';
import { MemoryPartnerDirectory, type PartnerEntry } from '../../src/net/partner.js';
import { ConnectionPool } from '../../src/net/pool.js';
import type { TlsMaterial } from '../../src/net/tls.js';

export function hostEntry(hostId: string, port: number, over: Partial<Host> = {}): Host {
  return { hostId, address: '127.0.0.1', port, isSsl: false, hostKey: null, adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0, ...over };
}

export function rule(idRule: string, over: Partial<Rule> = {}): Rule {
  return { idRule, hostIds: [], mode: TransferMode.SENDMODE, recvPath: '', sendPath: '', archivePath: '', workPath: '', rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0, ...over };
}

export interface TestHost {
  ctx: NetContext;
  directory: MemoryPartnerDirectory;
  home: string;
  rules: Map<string, Rule>;
  listener?: R66Listener;
  pool: ConnectionPool;
  close(): Promise<void>;
}

export const silent = pino({ level: 'silent' });

export async function makeHost(
  hostId: string,
  partners: PartnerEntry[],
  opts: { timeoutConMs?: number; tls?: TlsMaterial; listen?: boolean; reuse?: boolean; sslHostId?: string; maxFrameLength?: number; notify?: Notify } = {},
): Promise<TestHost> {
  const home = await mkdtemp(path.join(tmpdir(), `svc-net-${hostId}-`));
  await mkdir(path.join(home, 'out'), { recursive: true });
  const rules = new Map<string, Rule>();
  const directory = new MemoryPartnerDirectory(partners);
  const handlers = new RequestHandlers()
    .register('test', handleTest)
    .register('information', informationHandler({ findRule: async (id) => rules.get(id), serverHome: home, defaultOutPath: '/out' }));
  handlers.register('jsonCommand', baseJsonCommandHandler(handlers));
  const ctx: NetContext = {
    identity: { hostId, sslHostId: opts.sslHostId, digest: Digest.SHA512, globalDigest: true, compression: false, proxified: false },
    directory,
    handlers,
    blacklist: new Blacklist({ enabled: true, durationMs: 150_000 }),
    timeoutConMs: opts.timeoutConMs ?? 30_000,
    maxFrameLength: opts.maxFrameLength,
    reuseAuthentication: opts.reuse ?? true,
    logger: silent,
    ...(opts.notify ? { notify: opts.notify } : {}),
  };
  const pool = new ConnectionPool(ctx, opts.tls);
  const host: TestHost = {
    ctx,
    directory,
    home,
    rules,
    pool,
    async close() {
      await pool.close();
      await host.listener?.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
  if (opts.listen) {
    host.listener = new R66Listener(ctx, { port: 0, tls: opts.tls });
    await host.listener.start();
  }
  return host;
}

/**
 * A listening `hostb` and a client `hosta` that know each other (passwords `pa` / `pb` unless
 * given), with the same options on both sides.
 */
export async function makePair(opts: Parameters<typeof makeHost>[2] & { pwdA?: Buffer; pwdB?: Buffer } = {}): Promise<{ a: TestHost; b: TestHost; entries: PartnerEntry[] }> {
  const b = await makeHost('hostb', [], { ...opts, listen: true });
  const entries: PartnerEntry[] = [
    { host: hostEntry('hosta', 0), password: opts.pwdA ?? Buffer.from('pa') },
    { host: hostEntry('hostb', b.listener!.port), password: opts.pwdB ?? Buffer.from('pb') },
  ];
  for (const e of entries) b.directory.set(e);
  const a = await makeHost('hosta', entries, { ...opts, listen: false });
  return { a, b, entries };
}
