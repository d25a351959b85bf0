// Real svc-r66server processes for transfer tests: each node has its own home, SQLite database,
// server.xml (optionally with a REST listener) and partner file; started with `svc-r66server start`.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadClientConfig } from '../../src/config/index.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openClientNetwork } from '../../src/net/network.js';
import type { ConnectionPool } from '../../src/net/pool.js';
import type { Packet } from '../../src/protocol/index.js';
import { silentLogger } from '../../src/server/logger.js';
import { freePort } from '../../src/server/ports.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { CRYPTO_KEY, PASSWORD_HEX, runCli, spawnCli, sqliteRows, writeInstance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { patternBytes } from '../helpers/hosts.js';

export const BLOCK = 65536;

/** A rule file of rule `send` (the requester sends, any partner), for NodeOptions.rules. */
export const SEND_RULE = { 'send.rule.xml': '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n' };

export interface Node {
  id: string;
  port: number;
  restPort: number | null;
  confDir: string;
  home: string;
  db: string;
  env: NodeJS.ProcessEnv;
  proc?: Running;
}

/** A port free now (the server's own probe, src/server/ports.ts). */
export { freePort };

export interface NodeOptions {
  /** Extra `<limit>` children (e.g. `<globallimit>...`). */
  limit?: string;
  /** Adds a REST listener (Basic authentication; every host is a user with its key). */
  rest?: boolean;
  /** server.xml `<roles>` content. */
  roles?: string;
  /** Rule files to write in the configuration directory, by file name. */
  rules?: Record<string, string>;
  /** Partner entries flagged admin. */
  admins?: string[];
  /** `<business>` ids. */
  business?: string[];
}

/** Writes one node (not started) and initialises its database from its partner file and rules. */
export async function writeNode(box: Sandbox, id: string, port: number, partners: Array<{ id: string; port: number }>, opts: NodeOptions = {}): Promise<Node> {
  const confDir = join(box.dir, `conf-${id}`, id);
  const home = join(confDir, 'data');
  for (const d of ['in', 'out', 'work', 'arch', 'conf', 'admin']) mkdirSync(join(home, d), { recursive: true });
  const db = join(confDir, 'db.sqlite');
  writeFileSync(join(confDir, 'cryptokey.des'), CRYPTO_KEY);
  const restPort = opts.rest ? await freePort() : null;
  if (restPort !== null) writeFileSync(join(confDir, 'rest.key'), 'a-signature-key-of-this-test');
  const rest = restPort === null ? '' : `<rest><restaddress>127.0.0.1</restaddress><restport>${restPort}</restport><restsignature>false</restsignature>`
    + `<restauthenticated>true</restauthenticated><restsigkey>${join(confDir, 'rest.key')}</restsigkey><restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest>`;
  const roles = opts.roles ? `<roles>${opts.roles}</roles>` : '';
  const business = opts.business ? `<business>${opts.business.map((b) => `<businessid>${b}</businessid>`).join('')}</business>` : '';
  writeFileSync(join(confDir, 'server.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config>
  <identity><hostid>${id}</hostid><cryptokey>${join(confDir, 'cryptokey.des')}</cryptokey></identity>
  <server><serveradmin>admin</serveradmin><serverpasswd>${PASSWORD_HEX}</serverpasswd><usenossl>true</usenossl><usessl>false</usessl><httpadmin>${join(home, 'admin')}</httpadmin></server>
  <network><serverport>${port}</serverport><serverhttpport>0</serverhttpport><serverhttpsport>0</serverhttpsport></network>
  <directory><serverhome>${home}</serverhome><in>in</in><out>out</out><arch>arch</arch><work>work</work><conf>conf</conf></directory>
  <limit><timeoutcon>10000</timeoutcon><delaycommand>100</delaycommand><delayretry>1000</delayretry><blocksize>${BLOCK}</blocksize>${opts.limit ?? ''}</limit>
  <db><dbdriver>sqlite</dbdriver><dbserver>jdbc:sqlite:${db}</dbserver><dbuser>svc</dbuser><dbpasswd>pw</dbpasswd></db>
  ${rest}${roles}${business}
</config>
`);
  const admins = new Set(opts.admins ?? [id]);
  const entries = [{ id, port }, ...partners].map((p) => `<entry><hostid>${p.id}</hostid><address>127.0.0.1</address><port>${p.port}</port>${admins.has(p.id) ? '<admin>true</admin>' : ''}<key>${PASSWORD_HEX}</key></entry>`);
  writeFileSync(join(confDir, 'authent.xml'), `<authent>${entries.join('')}</authent>\n`);
  for (const [name, text] of Object.entries(opts.rules ?? {})) writeFileSync(join(confDir, name), text);
  const node: Node = { id, port, restPort, confDir, home, db, env: { ...box.env, CONFDIR: confDir, SVC_LOG_LEVEL: 'info' } };
  const r = await runCli('server', ['initdb', '-auth', join(confDir, 'authent.xml'), '-dir', confDir], node.env);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return node;
}

export interface PairNodeOptions extends NodeOptions {
  /** Partners besides the other node of the pair. */
  partners?: Array<{ id: string; port: number }>;
}

/** hosta and hostb on free ports, each a partner of the other (writeNode; not started). */
export async function writeNodePair(box: Sandbox, optsA: PairNodeOptions = {}, optsB: PairNodeOptions = {}): Promise<{ a: Node; b: Node }> {
  const [pa, pb] = [await freePort(), await freePort()];
  const { partners: moreA = [], ...restA } = optsA;
  const { partners: moreB = [], ...restB } = optsB;
  const a = await writeNode(box, 'hosta', pa, [{ id: 'hostb', port: pb }, ...moreA], restA);
  const b = await writeNode(box, 'hostb', pb, [{ id: 'hosta', port: pa }, ...moreB], restB);
  return { a, b };
}

/** writeNodePair, then starts hostb and hosta; kills both if either fails to start. */
export async function startNodePair(box: Sandbox, optsA: PairNodeOptions = {}, optsB: PairNodeOptions = {}): Promise<{ a: Node; b: Node }> {
  const { a, b } = await writeNodePair(box, optsA, optsB);
  try {
    await startNode(b);
    await startNode(a);
  } catch (err) {
    killNodes(a, b);
    throw err;
  }
  return { a, b };
}

export async function startNode(node: Node): Promise<Running> {
  const proc = spawnCli('server', ['start'], node.env);
  node.proc = proc;
  await waitFor(() => proc.stdout().includes('is running') || proc.child.exitCode !== null, { what: `${node.id} running`, timeoutMs: 20_000 });
  if (proc.child.exitCode !== null) throw new Error(`${node.id} did not start: ${proc.stdout()}\n${proc.stderr()}`);
  return proc;
}

export async function stopNode(node: Node): Promise<void> {
  const proc = node.proc;
  if (proc === undefined || proc.child.exitCode !== null) return;
  proc.child.kill('SIGTERM');
  await proc.exited;
}

export function killNodes(...nodes: Array<Node | undefined>): void {
  for (const n of nodes) if (n?.proc && n.proc.child.exitCode === null) n.proc.child.kill('SIGKILL');
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file).on('data', (d) => h.update(d)).on('end', () => resolve(h.digest('hex'))).on('error', reject);
  });
}

/** Writes `size` pattern bytes; returns their SHA-256. */
export async function writePatternFile(file: string, size: number): Promise<string> {
  const chunk = 4 * 1024 * 1024;
  const h = createHash('sha256');
  const out = createWriteStream(file);
  for (let done = 0, i = 0; done < size; i++) {
    const b = patternBytes(Math.min(chunk, size - done), i + 1);
    h.update(b);
    done += b.length;
    if (!out.write(b)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return h.digest('hex');
}

export interface RunnerRow {
  rank: bigint | number;
  updatedinfo: bigint | number;
  infostatus: string;
  globallaststep: bigint | number;
  transferinfo: string;
}

export async function rowOf(node: Node, id: bigint): Promise<RunnerRow | undefined> {
  const rows = await sqliteRows<RunnerRow>(node.db, `SELECT rank, updatedinfo, infostatus, globallaststep, transferinfo FROM runner WHERE specialid = ${id}`).catch(() => []);
  return rows[0];
}

/** The rows of transfer `id` on both nodes once both are DONE (within 60 s). */
export async function rowsDone(a: Node, b: Node, id: bigint): Promise<{ ra: RunnerRow; rb: RunnerRow }> {
  return waitFor(async () => {
    const ra = await rowOf(a, id);
    const rb = await rowOf(b, id);
    return ra && rb && Number(ra.updatedinfo) === UpdatedInfo.DONE && Number(rb.updatedinfo) === UpdatedInfo.DONE ? { ra, rb } : undefined;
  }, { what: 'both rows done', timeoutMs: 60_000 });
}

/** The file `name` received in `node`'s in directory (under its own name or with a transfer-id prefix). */
export function receivedFile(node: Node, name: string): string {
  const dir = join(node.home, 'in');
  const found = readdirSync(dir).filter((f) => f === name || f.endsWith(`_${name}`));
  expect(found, `${name} in ${dir}`).toHaveLength(1);
  return join(dir, found[0]!);
}

/** JSON log lines of a node with this message. */
export function logsOf(node: Node, msg: string): Array<Record<string, unknown>> {
  return (node.proc?.stdout() ?? '').split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Basic authentication of REST user `hostId` (its key is the encrypted "password"). */
export function basicAuth(hostId: string): string {
  return `Basic ${Buffer.from(`${hostId}:password`).toString('base64')}`;
}

export async function rest(node: Node, method: string, path: string, body?: unknown, user = node.id): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers }> {
  const res = await fetch(`http://127.0.0.1:${node.restPort}${path}`, {
    method,
    headers: { authorization: basicAuth(user), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers };
}

/** Submits a transfer of `file` from `node` to `requested` with rule `send` through REST v2 (answer 201); returns its id. */
export async function submitByRest(node: Node, file: string, requested: string): Promise<bigint> {
  const r = await rest(node, 'POST', '/v2/transfers', { ruleName: 'send', filename: file, requested });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return BigInt(/\/v2\/transfers\/(-?\d+)_/.exec(r.headers.get('transfer-uri') ?? '')![1]!);
}

/** A client identity in the test process (its own client.xml and SQLite partner table) talking R66 to `servers`. */
export interface Caller {
  pool: ConnectionPool;
  close(): Promise<void>;
}

export async function openCaller(box: Sandbox, id: string, servers: Node[]): Promise<Caller> {
  const inst = writeInstance(join(box.dir, 'callers', id), { hostId: id });
  const entries = [{ id, port: 1 }, ...servers.map((s) => ({ id: s.id, port: s.port }))]
    .map((p) => `<entry><hostid>${p.id}</hostid><address>127.0.0.1</address><port>${p.port}</port><key>${PASSWORD_HEX}</key></entry>`);
  writeFileSync(join(inst.confDir, 'authent.xml'), `<authent>${entries.join('')}</authent>\n`);
  const env = { ...box.env, CONFDIR: inst.confDir };
  const r = await runCli('client', ['initdb', '-auth', join(inst.confDir, 'authent.xml')], env);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const config = await loadClientConfig(join(inst.confDir, 'client.xml'));
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${inst.sqliteFile}`, 'svc', 'pw'), { hostId: id });
  const net = await openClientNetwork(config, { findHost: (h) => store.hosts.get(h), findRule: (x) => store.rules.get(x) }, { logger: silentLogger() });
  return {
    pool: net.pool,
    close: async () => {
      await net.pool.close();
      await store.close();
    },
  };
}

/** Sends one order on a new channel to `to` and returns the first answer. */
export async function order(caller: Caller, to: string, packet: Packet): Promise<Packet> {
  const { channel } = await caller.pool.openChannel(to);
  try {
    await channel.send(packet);
    return await channel.receive(15_000, 'the answer');
  } finally {
    channel.close();
  }
}
