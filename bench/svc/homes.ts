/**
 * Two svc instances for the benchmark, written as files the way an operator would: server.xml,
 * client.xml, authent.xml (each host knows the other, plain and TLS), a `send` rule, throwaway
 * TLS certificates, then `svc-r66server initdb` loads partners and rules into each SQLite database.
 *
 * - hosta is the sending side: `svc-r66client` runs with hosta's client.xml (own database, so it
 *   never contends with the hosta server), and hosta's server runs the scheduler for `masend`
 *   submissions (the concurrent scenario), whose submit configuration points at the server's
 *   database.
 * - hostb receives. Both use the same digest (SHA-256 unless `--digest`) with the whole-file
 *   digest on, no compression.
 *
 * Transfer ids: a database's sequence starts at the epoch milliseconds of its initdb, so hosta's
 * client database and hosta's server database, made a moment apart, would hand out the same ids
 * (both as requester hosta: hostb would take the second transfer of an id as one it already
 * finished). The client database starts its sequence at CLIENT_MIN_SEQ instead.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { monitoringXml, type MonitoringSinks } from './monitoring.js';

/** Key d3074a6b3108a22c and the encrypted "password" (spec config.md §10.2), as the tests use. */
const CRYPTO_KEY_HEX = 'd3074a6b3108a22c';
const PASSWORD_HEX = '5a4b7c6a66065cbb622acefec8c3a302';
const TLS_PASS = 'benchpass';
/**
 * First transfer id of hosta's client database (`initdb -minimalSeq`, cli.md §4): far above the
 * server's epoch-millisecond ids (about 1.7e12), below 2^53 so that JSON readers keep it exact.
 */
export const CLIENT_MIN_SEQ = 1_000_000_000_000_000;

export interface HostPorts {
  port: number;
  sslPort: number;
}

export interface Home {
  id: string;
  /** The TLS identity (`sslhostid`): partners reach this host over TLS under this id. */
  sslId: string;
  confDir: string;
  serverHome: string;
  inDir: string;
  outDir: string;
  ports: HostPorts;
  /** A client configuration reading the server's own database (asend/masend submissions). */
  submitXml: string;
  /** With --monitoring including metrics: the server's metrics port. */
  metricsPort?: number;
}

export interface HomeOptions {
  /** limit/runlimit of the server (transfers its scheduler runs at once). */
  runLimit: number;
  /** limit/digest, in the original's numbering (config.md): 5 is SHA-256. */
  digest: number;
  /** --monitoring: the chosen monitoring facilities on, reporting to these sinks (monitoring.ts). */
  monitoring?: Pick<MonitoringSinks, 'facilities' | 'pushUrl' | 'trapPort'>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A self-signed EC certificate (cheap to make) with its key, in one PEM file as keypath expects. */
function makeCertificate(dir: string, cn: string): { keyPem: string; certPem: string } {
  const key = join(dir, `${cn}.key`);
  const cert = join(dir, `${cn}.crt`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${cn}`], { stdio: 'pipe' });
  const keyPem = join(dir, `${cn}.pem`);
  writeFileSync(keyPem, readFileSync(key, 'utf8') + readFileSync(cert, 'utf8'));
  return { keyPem, certPem: cert };
}

function entry(id: string, port: number, ssl: boolean, admin: boolean): string {
  return `<entry><hostid>${id}</hostid><address>127.0.0.1</address><port>${port}</port><isssl>${ssl}</isssl><admin>${admin}</admin><key>${PASSWORD_HEX}</key></entry>`;
}

interface Layout {
  id: string;
  confDir: string;
  serverHome: string;
  db: string;
}

function identity(l: Layout): string {
  return `<identity><hostid>${l.id}</hostid><sslhostid>${l.id}-ssl</sslhostid><cryptokey>${join(l.confDir, 'cryptokey.des')}</cryptokey></identity>`;
}

function directory(l: Layout): string {
  return `<directory><serverhome>${l.serverHome}</serverhome><in>in</in><out>out</out><arch>arch</arch><work>work</work><conf>conf</conf></directory>`;
}

function dbSection(file: string): string {
  return `<db><dbdriver>sqlite</dbdriver><dbserver>jdbc:sqlite:${file}</dbserver><dbuser>svc</dbuser><dbpasswd>unused</dbpasswd></db>`;
}

function ssl(keyPem: string, trustPem: string): string {
  return `<ssl><keypath>${keyPem}</keypath><keystorepass>${TLS_PASS}</keystorepass><keypass>${TLS_PASS}</keypass>` +
    `<trustkeypath>${trustPem}</trustkeypath><trustkeystorepass>${TLS_PASS}</trustkeystorepass><trustuseclientauthenticate>True</trustuseclientauthenticate></ssl>`;
}

function limits(opts: HomeOptions): string {
  // delaycommand 100 ms: the shortest scheduler period the configuration allows.
  return `<limit><timeoutcon>30000</timeoutcon><delaycommand>100</delaycommand><delayretry>1000</delayretry><runlimit>${opts.runLimit}</runlimit>` +
    `<digest>${opts.digest}</digest><globaldigest>true</globaldigest><compression>false</compression></limit>`;
}

/** A command that initialises a database: `svc-r66<side> <args>` with the configuration of `home`. */
export interface InitCommand {
  side: 'server' | 'client';
  home: Home;
  args: string[];
}

/** Writes hosta and hostb under `root`; runs nothing yet: `run` are the initdb commands to run, in order. */
export async function writeHomes(root: string, opts: HomeOptions): Promise<{ a: Home; b: Home; run: InitCommand[] }> {
  const ids = ['hosta', 'hostb'] as const;
  const ports: Record<string, HostPorts> = {};
  for (const id of ids) ports[id] = { port: await freePort(), sslPort: await freePort() };
  const certDir = join(root, 'tls');
  mkdirSync(certDir, { recursive: true });
  const certs = Object.fromEntries(ids.map((id) => [id, makeCertificate(certDir, id)]));
  const trustPem = join(certDir, 'trust.pem');
  writeFileSync(trustPem, ids.map((id) => readFileSync(certs[id]?.certPem as string, 'utf8')).join(''));
  const authent = `<authent>${ids.flatMap((id) => [entry(id, ports[id]?.port as number, false, true), entry(`${id}-ssl`, ports[id]?.sslPort as number, true, true)]).join('')}</authent>\n`;

  const homes: Home[] = [];
  const run: InitCommand[] = [];
  for (const id of ids) {
    const confDir = join(root, id);
    const serverHome = join(confDir, 'data');
    for (const d of ['in', 'out', 'arch', 'work', 'conf', 'admin']) mkdirSync(join(serverHome, d), { recursive: true });
    const l: Layout = { id, confDir, serverHome, db: join(confDir, 'server.sqlite') };
    const p = ports[id] as HostPorts;
    const tls = ssl(certs[id]?.keyPem as string, trustPem);
    const mon = opts.monitoring ? await monitoringXml(confDir, opts.monitoring) : { root: '', server: '', metricsPort: undefined };
    writeFileSync(join(confDir, 'cryptokey.des'), Buffer.from(CRYPTO_KEY_HEX, 'hex'));
    writeFileSync(join(confDir, 'authent.xml'), authent);
    writeFileSync(join(confDir, 'send.rule.xml'), '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n');
    writeFileSync(join(confDir, 'server.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config>
  ${identity(l)}
  <server><serveradmin>admin</serveradmin><serverpasswd>${PASSWORD_HEX}</serverpasswd><usenossl>true</usenossl><usessl>true</usessl><httpadmin>${join(serverHome, 'admin')}</httpadmin>${mon.server}</server>
  <network><serverport>${p.port}</serverport><serversslport>${p.sslPort}</serversslport><serverhttpport>0</serverhttpport><serverhttpsport>0</serverhttpsport></network>
  ${tls}
  ${directory(l)}
  ${limits(opts)}
  ${dbSection(l.db)}
  ${mon.root}
</config>
`);
    // The client (send, msend) has its own database: the server's scheduler polls its own.
    const clientDb = join(confDir, 'client.sqlite');
    writeFileSync(join(confDir, 'client.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config>${identity(l)}<client/>${tls}${directory(l)}${limits(opts)}${dbSection(clientDb)}</config>
`);
    const submitXml = join(confDir, 'submit.xml');
    writeFileSync(submitXml, `<?xml version="1.0" encoding="UTF-8"?>
<config>${identity(l)}<client/>${directory(l)}${limits(opts)}${dbSection(l.db)}</config>
`);
    const home: Home = { id, sslId: `${id}-ssl`, confDir, serverHome, inDir: join(serverHome, 'in'), outDir: join(serverHome, 'out'), ports: p, submitXml, ...(mon.metricsPort !== undefined ? { metricsPort: mon.metricsPort } : {}) };
    homes.push(home);
    const loads = ['-auth', join(confDir, 'authent.xml'), '-dir', confDir];
    run.push({ side: 'server', home, args: ['initdb', ...loads] });
    if (id === 'hosta') run.push({ side: 'client', home, args: ['initdb', ...loads, '-minimalSeq', String(CLIENT_MIN_SEQ)] });
  }
  return { a: homes[0] as Home, b: homes[1] as Home, run };
}
