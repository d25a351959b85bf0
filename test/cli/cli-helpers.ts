// Spawning the real CLI (bin/*.js against dist/, built by vitest's global setup) with temporary
// homes and instance directories, plus a small instance fixture writer.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BINS = { server: join(ROOT, 'bin/svc-r66server.js'), client: join(ROOT, 'bin/svc-r66client.js') };

/** Key d3074a6b3108a22c and the encrypted "password" of config.md §10.2. */
export const CRYPTO_KEY = Buffer.from('d3074a6b3108a22c', 'hex');
export const PASSWORD_HEX = '5a4b7c6a66065cbb622acefec8c3a302';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A scratch area: HOME and an empty configuration root, removed by cleanup(). */
export interface Sandbox {
  dir: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'home'), INSTANCES_CONF: join(dir, 'no-instances'), SVC_LOG_LEVEL: 'info' };
  for (const v of ['CONFDIR', 'SVC_R66_HOME', 'PIDFILE', 'SVC_SERVICE', 'SVC_R66_DAEMON']) delete env[v];
  mkdirSync(env.HOME as string, { recursive: true });
  return { dir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running CLI process whose output is collected as it comes. */
export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<CliResult>;
}

export function spawnCli(side: 'server' | 'client', args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Running {
  const child = spawn(process.execPath, [BINS[side], ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<CliResult>((res) => child.on('close', (code) => res({ code, stdout: out, stderr: err })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

export function runCli(side: 'server' | 'client', args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return spawnCli(side, args, env).exited;
}

export interface InstanceOptions {
  /** `dbdriver` and `dbserver`; default SQLite in the instance's data directory; null = no database. */
  db?: { driver: string; url: string; user?: string; password?: string } | null;
  usenossl?: boolean;
  usessl?: boolean;
  hostId?: string;
}

export interface Instance {
  confDir: string;
  serverHome: string;
  sqliteFile: string;
  hostId: string;
}

/** Writes a complete instance: server.xml, client.xml, authent.xml, cryptokey, rule files. */
export function writeInstance(confDir: string, opts: InstanceOptions = {}): Instance {
  const hostId = opts.hostId ?? 'hosta';
  const serverHome = join(confDir, 'data');
  mkdirSync(join(serverHome, 'admin'), { recursive: true });
  const sqliteFile = join(confDir, 'db.sqlite');
  const db = opts.db === undefined ? { driver: 'sqlite', url: `jdbc:sqlite:${sqliteFile}` } : opts.db;
  writeFileSync(join(confDir, 'cryptokey.des'), CRYPTO_KEY);
  const authent = db === null ? `<authentfile>${join(confDir, 'authent.xml')}</authentfile>` : '';
  const identity = `<identity><hostid>${hostId}</hostid><cryptokey>${join(confDir, 'cryptokey.des')}</cryptokey>${authent}</identity>`;
  const directory = `<directory><serverhome>${serverHome}</serverhome><in>in</in><out>out</out><arch>arch</arch><work>work</work><conf>conf</conf></directory>`;
  const dbXml = db === null ? '' : `<db><dbdriver>${db.driver}</dbdriver><dbserver>${db.url}</dbserver><dbuser>${db.user ?? 'svc'}</dbuser><dbpasswd>${db.password ?? 'pw'}</dbpasswd></db>`;
  writeFileSync(join(confDir, 'server.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config>
  ${identity}
  <server><serveradmin>admin</serveradmin><serverpasswd>${PASSWORD_HEX}</serverpasswd>
    <usenossl>${opts.usenossl ?? true}</usenossl><usessl>${opts.usessl ?? false}</usessl><httpadmin>${join(serverHome, 'admin')}</httpadmin></server>
  <network><serverport>0</serverport><serverhttpport>0</serverhttpport><serverhttpsport>0</serverhttpsport></network>
  ${directory}
  <limit><timeoutcon>10000</timeoutcon></limit>
  ${dbXml}
</config>
`);
  writeFileSync(join(confDir, 'client.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config>${identity}<client/>${directory}${dbXml}</config>
`);
  writeFileSync(join(confDir, 'authent.xml'), `<authent>
  <entry><hostid>${hostId}</hostid><address>127.0.0.1</address><port>6666</port><admin>true</admin><key>${PASSWORD_HEX}</key></entry>
  <entry><hostid>partnera</hostid><address>10.0.0.20</address><port>6666</port><key>${PASSWORD_HEX}</key></entry>
</authent>
`);
  writeFileSync(join(confDir, 'send.rule.xml'), `<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n`);
  writeFileSync(join(confDir, 'site.rules.xml'), `<rules><rule><idrule>pull</idrule><hostids><hostid>partnera</hostid></hostids><mode>2</mode><recvpath>in/pulled</recvpath></rule></rules>\n`);
  return { confDir, serverHome, sqliteFile, hostId };
}

/** Rows of a SQLite database file (fresh connection each call); column names in lower case. */
export async function sqliteRows<R = Record<string, unknown>>(file: string, query: string): Promise<R[]> {
  const BetterSqlite = (await import('better-sqlite3')).default;
  const db = new BetterSqlite(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(query).all() as Record<string, unknown>[];
    return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]))) as R[];
  } finally {
    db.close();
  }
}

/** No stack trace reached the user. */
export function hasNoStack(text: string): boolean {
  return !/\n\s+at .+:\d+:\d+/.test(text);
}
