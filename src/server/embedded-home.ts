/**
 * The embedded default: on a machine without any installed instance, `svc-r66server start`
 * creates a complete per-user instance (default `~/.svc-r66`) and runs it. Layout:
 *
 *   server.xml client.xml authent.xml     configuration (absolute paths inside)
 *   cryptokey.des                         DES key of every encrypted password
 *   admin.ggp  <hostid>.ggp               administrator and host passwords (encrypted)
 *   restsigning.key                       HMAC key of the REST listener (127.0.0.1, user admin)
 *   send.rule.xml recv.rule.xml           default rules (any partner)
 *   data/{in,out,arch,work,conf,admin}    serverhome and its working directories
 *   data/log/                             logs of the background (service) mode (made at its start)
 *   db/svc-r66.sqlite                     the SQLite database (schema, partners, rules loaded)
 *
 * Creation is all or nothing: server.xml is what marks a home as existing, and any failure removes
 * everything this run created.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { generateCryptoKey, writeCryptoKeyFile, writeGgpFile } from '../config/crypto.js';
import { el, section, writeXmlFile, type XmlOut } from '../config/xml-write.js';
import { makeDirsSync } from '../fs/make-dirs.js';
import { runDatabaseTool } from './database-tool.js';
import { pickPort } from './ports.js';
import { silentLogger } from './logger.js';
import { writeSelfSignedPem } from '../web/admin/self-signed.js';

/** The original's default R66 ports (config.md §3.3). */
export const DEFAULT_R66_PORT = 6666;
export const DEFAULT_R66_SSL_PORT = 6667;
/** The REST port of config.md's samples; the home's REST listener only binds the loopback address. */
export const DEFAULT_REST_PORT = 8088;
export const REST_ADDRESS = '127.0.0.1';
/** The original's web ports (web-ui.md): monitoring (HTTP) and administration (HTTPS), loopback only here. */
export const DEFAULT_HTTP_PORT = 8066;
export const DEFAULT_HTTPS_PORT = 8067;

export interface HomeReport {
  home: string;
  hostId: string;
  port: number;
  sslPort: number;
  restPort: number;
  /** Web monitoring (HTTP) and administration (HTTPS) ports; 0 = off. */
  httpPort: number;
  httpsPort: number;
  database: string;
}

/**
 * What `svc-r66server init` chooses (init-home.ts); every value left out is chosen as at a first
 * start: `defaultHostId()`, the original's ports when free.
 */
export interface HomeOptions {
  hostId?: string;
  port?: number;
  sslPort?: number;
  restPort?: number;
  /** `network/serverhttpport` and `serverhttpsport` (web pages); 0 = none; left out: the original's ports when free. */
  httpPort?: number;
  httpsPort?: number;
}

/** Something that prints the human lines (the CLI's Io). */
export interface HomePrinter {
  out(text: string): void;
}

/** `svc-<hostname>`, reduced to characters every partner accepts in a host id. */
export function defaultHostId(): string {
  const name = hostname().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'host';
  return `svc-${name}`;
}

function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

function rule(idRule: string, mode: number, comment: string): XmlOut {
  const empty = (name: string): XmlOut => section(name, [section('tasks', [])]);
  return section('rule', [
    ...el('idrule', idRule),
    ...el('comment', comment),
    section('hostids', []),
    ...el('mode', mode),
    empty('rpretasks'), empty('rposttasks'), empty('rerrortasks'),
    empty('spretasks'), empty('sposttasks'), empty('serrortasks'),
  ]);
}

/** A partner entry; port -1 makes a client-only entry (config.md §5): the REST user `admin`. */
function partner(hostId: string, port: number, keyFile: string): XmlOut {
  return section('entry', [
    ...el('hostid', hostId), ...el('address', port < 0 ? '0.0.0.0' : '127.0.0.1'), ...el('port', port), ...el('isssl', false),
    ...el('admin', true), ...el('isclient', port < 0), ...el('isactive', true), ...el('keyfile', keyFile),
  ]);
}

/**
 * The REST v1/v2 listener: loopback only, authentication (v2 Basic or HMAC) and signatures, every
 * function. Signatures stay on: without them v1 checks no password at all (rest-v1.md §4.2).
 */
function restSection(port: number, sigKeyFile: string): XmlOut {
  return section('rest', [
    ...el('restaddress', REST_ADDRESS), ...el('restport', port), ...el('restssl', false),
    ...el('restauthenticated', true), ...el('restsignature', true), ...el('restsigkey', sigKeyFile),
    // HMAC authentication accepts request timestamps up to 5 minutes old.
    ...el('resttimelimit', 300_000),
    section('restmethod', [...el('restname', 'ALL'), ...el('restcrud', 'CRUD')]),
  ]);
}

/** Creates the home if it has no server.xml yet, printing what was made; returns undefined if it existed. */
export async function ensureEmbeddedHome(home: string, printer: HomePrinter, options: HomeOptions = {}): Promise<HomeReport | undefined> {
  const serverXml = join(home, 'server.xml');
  if (existsSync(serverXml)) return undefined;
  const homeExisted = existsSync(home);
  const created: string[] = [];
  try {
    const report = await createHome(home, created, options);
    printer.out(
      `Created the svc-r66 home ${home} (host id ${report.hostId}):\n` +
        `  configuration  ${join(home, 'server.xml')}, client.xml, authent.xml, send.rule.xml, recv.rule.xml\n` +
        `  keys           cryptokey.des, admin.ggp (administrator 'admin'), ${report.hostId}.ggp (host password), restsigning.key\n` +
        `  files          ${join(home, 'data')} (in, out, arch, work)\n` +
        `  database       ${report.database}\n` +
        `  R66 port       ${report.port} (plain; TLS port ${report.sslPort} is configured but off: no certificate)\n` +
        `  REST API       http://${REST_ADDRESS}:${report.restPort}/v2/ (and v1), user 'admin'; its password: ` +
        `svc-password -ki ${join(home, 'cryptokey.des')} -pi ${join(home, 'admin.ggp')} -clear\n` +
        (report.httpPort > 0 ? `  monitoring     http://${REST_ADDRESS}:${report.httpPort}/ (read-only, no login)\n` : '') +
        (report.httpsPort > 0 ? `  administration https://${REST_ADDRESS}:${report.httpsPort}/ (self-signed certificate ${join(home, 'admin-web.pem')}): ` +
          `log in as 'admin' with the same password as the REST API\n` : ''),
    );
    return report;
  } catch (err) {
    // All or nothing: a half-made home would be taken as a real one by the next start.
    if (!homeExisted) rmSync(home, { recursive: true, force: true });
    else for (const path of created.reverse()) rmSync(path, { recursive: true, force: true });
    throw err;
  }
}

async function createHome(home: string, created: string[], options: HomeOptions): Promise<HomeReport> {
  const hostId = options.hostId ?? defaultHostId();
  const port = options.port ?? (await pickPort(DEFAULT_R66_PORT));
  const sslPort = options.sslPort ?? (await pickPort(DEFAULT_R66_SSL_PORT, [port]));
  const restPort = options.restPort ?? (await pickPort(DEFAULT_REST_PORT, [port, sslPort]));
  const httpPort = options.httpPort ?? (await pickPort(DEFAULT_HTTP_PORT, [port, sslPort, restPort]));
  const httpsPort = options.httpsPort ?? (await pickPort(DEFAULT_HTTPS_PORT, [port, sslPort, restPort, httpPort]));
  // Only what this run creates is removed on failure: a file already there is the user's.
  const p = (name: string): string => {
    const path = join(home, name);
    if (!existsSync(path)) created.push(path);
    return path;
  };
  makeDirsSync(home, 0o700);
  const dataDir = p('data');
  for (const d of ['in', 'out', 'arch', 'work', 'conf', 'admin']) makeDirsSync(join(dataDir, d));
  const dbDir = p('db');
  makeDirsSync(dbDir);

  const keyFile = p('cryptokey.des');
  const key = generateCryptoKey();
  await writeCryptoKeyFile(keyFile, key);
  const adminGgp = p('admin.ggp');
  await writeGgpFile(adminGgp, key, newPassword());
  const hostGgp = p(`${hostId}.ggp`);
  await writeGgpFile(hostGgp, key, newPassword());
  const sigKeyFile = p('restsigning.key');
  await writeFile(sigKeyFile, randomBytes(64), { mode: 0o600 });
  // The administration area's certificate: self-signed for localhost, replaceable through admkeypath.
  const adminPem = httpsPort > 0 ? p('admin-web.pem') : undefined;
  const adminKeyPass = newPassword();
  if (adminPem !== undefined) await writeSelfSignedPem(adminPem, adminKeyPass);

  const database = join(dbDir, 'svc-r66.sqlite');
  const identity = section('identity', [...el('hostid', hostId), ...el('cryptokey', keyFile)]);
  const directory = section('directory', [
    ...el('serverhome', dataDir), ...el('in', 'in'), ...el('out', 'out'), ...el('arch', 'arch'), ...el('work', 'work'), ...el('conf', 'conf'),
  ]);
  const db = section('db', [
    ...el('dbdriver', 'sqlite'), ...el('dbserver', `jdbc:sqlite:${database}`),
    // SQLite has no users; the loader still requires both values (config.md §3.7).
    ...el('dbuser', 'svc'), ...el('dbpasswd', 'unused-by-sqlite'),
    ...el('autoUpgrade', true),
  ]);
  const comment = (text: string): XmlOut[] => el('comment', text);

  await writeXmlFile(p('authent.xml'), section('authent', [
    ...comment(`Partners of ${hostId}. Load changes with: svc-r66server loadconf`),
    partner(hostId, port, hostGgp),
    partner('admin', -1, adminGgp),
  ]));
  await writeXmlFile(p('send.rule.xml'), rule('send', 1, 'Default rule: the requester sends a file to the partner'));
  await writeXmlFile(p('recv.rule.xml'), rule('recv', 2, 'Default rule: the requester receives a file from the partner'));
  await writeXmlFile(p('client.xml'), section('config', [
    ...comment(`Client of the embedded svc-r66 home (${home})`),
    identity, section('client', []), directory, db,
  ]));
  const serverConfig = section('config', [
    ...comment(`Embedded svc-r66 home (${home}), generated at first start`),
    identity,
    section('server', [
      ...el('serveradmin', 'admin'), ...el('serverpasswdfile', adminGgp), ...el('usenossl', true), ...el('usessl', false),
      ...el('httpadmin', join(dataDir, 'admin')),
      ...(adminPem !== undefined ? [...el('admkeypath', adminPem), ...el('admkeystorepass', adminKeyPass), ...el('admkeypass', adminKeyPass)] : []),
    ]),
    section('network', [
      ...el('serverport', port), ...el('serversslport', sslPort),
      ...el('serverhttpport', httpPort), ...el('serverhttpaddresses', REST_ADDRESS), ...el('serverhttpsport', httpsPort), ...el('serverhttpsaddresses', REST_ADDRESS),
    ]),
    directory, db, restSection(restPort, sigKeyFile),
  ]);
  // A temporary name until the database is ready: server.xml is the marker of a complete home.
  const pending = p('server.xml.new');
  await writeXmlFile(pending, serverConfig);
  await runDatabaseTool({
    configFile: pending, side: 'server', initdb: true, upgradeDb: true,
    authFile: join(home, 'authent.xml'), ruleDir: home, log: silentLogger(),
  });
  await writeXmlFile(p('server.xml'), serverConfig);
  rmSync(pending, { force: true });
  return { home, hostId, port, sslPort, restPort, httpPort, httpsPort, database };
}
