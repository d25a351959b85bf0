// A real REST listener on 127.0.0.1:0 over a real store, with partners, roles and a signing key.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { defaultSecurity, encryptPasswordHex, generateCryptoKey, REST_FUNCTIONS, type RestConfig, type SecurityConfig, type ServerConfig } from '../../src/config/index.js';
import { createRestApp, memoryBandwidth, type RestServices } from '../../src/http/index.js';
import { formatRoles } from '../../src/config/hostconfig-xml.js';
import type { Host } from '../../src/model/host.js';
import { remoteReadable, TransferOrders } from '../../src/operations/index.js';
import { openStore, type DbConnectionSettings, type Store } from '../../src/store/index.js';

export const SIG_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

export interface Harness {
  base: string;
  store: Store;
  config: ServerConfig;
  services: RestServices;
  logLines: string[];
  shutdowns: boolean[];
  home: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  settings: DbConnectionSettings;
  rest?: Partial<RestConfig>;
  security?: Partial<SecurityConfig>;
}

export function host(cryptoKey: Buffer, id: string, password: string, over: Partial<Host> = {}): Host {
  return {
    hostId: id, address: '127.0.0.1', port: 6666, isSsl: false, hostKey: Buffer.from(encryptPasswordHex(cryptoKey, password), 'ascii'),
    adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0, ...over,
  };
}

export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const home = mkdtempSync(join(tmpdir(), 'svc-http-'));
  for (const d of ['in', 'out', 'arch', 'work', 'conf']) mkdirSync(join(home, d));
  const cryptoKey = generateCryptoKey();
  const methods = Object.fromEntries(REST_FUNCTIONS.map((f) => [f, 0x0f])) as RestConfig['methods'];
  const rest: RestConfig = {
    port: 0, address: '127.0.0.1', ssl: false, authenticated: true, signature: false, sigKeyFile: undefined, sigKey: SIG_KEY,
    timeLimit: 30_000, methods, ...opts.rest,
  };
  const config = {
    file: join(home, 'server.xml'), hostId: 'hosta', sslHostId: 'hosta-ssl',
    identity: { hostId: 'hosta', sslHostId: 'hosta-ssl', cryptoKeyFile: '', cryptoKey, authentFile: undefined, locale: 'en' },
    server: { adminName: 'admin', adminPassword: 'adminpwd' },
    directories: { serverHome: home, virtual: { in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' },
      in: join(home, 'in'), out: join(home, 'out'), arch: join(home, 'arch'), work: join(home, 'work'), conf: join(home, 'conf') },
    limits: { memoryLimit: 64 * 1024, blockSize: 65536, globalLimit: 0, sessionLimit: 0, delayLimit: 1000, timeoutCon: 30_000 },
    ssl: null, rest: [rest], roles: [{ hostId: 'v1user', roles: 64 }], business: [], aliases: [], warnings: [],
    // Tests try many wrong credentials on purpose: the lockout is tested with its own settings.
    security: { ...defaultSecurity(30_000), restMaxAuthFailures: 1000, ...opts.security },
  } as unknown as ServerConfig;
  const store = await openStore(opts.settings, { hostId: 'hosta' });
  await store.initSchema({ hostId: 'hosta' });
  await store.hosts.upsert(host(cryptoKey, 'hosta', 'hostapwd'));
  await store.hosts.upsert(host(cryptoKey, 'hostb', 'hostbpwd'));
  await store.hosts.upsert(host(cryptoKey, 'restadmin', 's3cret', { adminRole: true }));
  await store.hosts.upsert(host(cryptoKey, 'monitor', 'monpwd'));
  await store.hosts.upsert(host(cryptoKey, 'nobody', 'nopwd'));
  await store.hosts.upsert(host(cryptoKey, 'v1user', 'v1pwd', { port: -1, isClient: true, address: '0.0.0.0' }));
  const hc = await store.hostConfigs.get('hosta');
  await store.hostConfigs.upsert({
    hostId: 'hosta', business: '', aliases: '', others: hc?.others ?? '<root><version>3.1.0</version></root>', updatedInfo: 0,
    roles: formatRoles([{ hostName: 'monitor', roleList: ['READONLY', 'LOGCONTROL'] }]),
  });
  const logLines: string[] = [];
  const shutdowns: boolean[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => { logLines.push(line); } });
  const services: RestServices = {
    config, store, log, bandwidth: memoryBandwidth(config), startedAt: new Date(), now: () => new Date(),
    fileMonitors: { list: () => [] }, counters: { networkConnections: () => 0, activeChannels: () => 0, inBandwidth: () => 0, outBandwidth: () => 0 },
    shutdown: (restart) => { shutdowns.push(restart); }, blockRequests: () => undefined,
    // The order service as the server composes it (server/rest-services.ts); a test plugs an engine in `transfers`.
    orders: new TransferOrders({
      store, hostId: config.hostId, sslHostId: config.sslHostId, directories: config.directories, blockSize: config.limits.blockSize,
      extraServed: remoteReadable(config.directories), live: () => services.transfers, now: () => services.now(),
    }),
  };
  const app: FastifyInstance = createRestApp({ services, rest });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    base: `http://127.0.0.1:${port}`, store, config, services, logLines, shutdowns, home,
    close: async () => {
      await app.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export const basic = (user: string, pwd: string): string => `Basic ${Buffer.from(`${user}:${pwd}`).toString('base64')}`;
export const ADMIN = basic('restadmin', 's3cret');
