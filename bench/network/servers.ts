/**
 * Real servers for the network task tests and bench, started on loopback with free ports and
 * stopped after:
 * c-icap with virus_scan + clamav (a local EICAR signature database, nothing downloaded), proftpd
 * (plain and TLS, mod_digest), s3rver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer, connect } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Polls `check` until it is true; throws after `timeoutMs` (the tests' waitFor, kept local: bench/ builds on its own). */
async function waitFor(check: () => Promise<boolean>, opts: { timeoutMs: number; what: string }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A port free right now on 127.0.0.1 (the server binds it just after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** True once something accepts TCP connections on the port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface RunningServer {
  port: number;
  dir: string;
  stop(): Promise<void>;
}

/** Stops a detached child and everything in its process group. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }, 3000);
  await exited;
  clearTimeout(timer);
}

/**
 * Spawns a server in its own process group and waits until it accepts on `port`; on failure its
 * stderr and log end are in the error. `cleanup` runs after the stop.
 */
async function launch(what: string, command: string, args: string[], port: number, logFile: string, cleanup: () => void): Promise<() => Promise<void>> {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const stop = async (): Promise<void> => {
    await stopGroup(child);
    cleanup();
  };
  try {
    await waitFor(async () => child.exitCode === null && (await accepts(port)), { timeoutMs: 20_000, what: `${what} to listen` });
  } catch (err) {
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
    const why = `${(err as Error).message}\n${stderr.slice(-2000)}\n${log}`;
    await stop();
    throw new Error(why);
  }
  return stop;
}

// ---------------------------------------------------------------- c-icap + clamav

export const CLAMAV_DB_DIR = '/var/lib/clamav';
export const EICAR_SIGNATURE_NAME = 'Svc-Eicar-Test';

/** Whether c-icap can run here. */
export function icapAvailable(): boolean {
  return existsSync('/usr/bin/c-icap') && existsSync('/usr/lib/x86_64-linux-gnu/c_icap/virus_scan.so') && existsSync('/usr/lib/x86_64-linux-gnu/c_icap/clamav_mod.so');
}

/** clamav_mod reads its database from the compiled-in directory: a private mount namespace puts ours there. */
function canUnshare(): boolean {
  try {
    execFileSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts c-icap with the virus_scan service on clamav, services `avscan`, `srv_clamav` and
 * `virus_scan`, and a signature database holding only an EICAR body signature.
 */
export async function startIcap(): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-icap-'));
  const db = join(dir, 'db');
  mkdirSync(db);
  mkdirSync(join(dir, 'tmp'));
  const hex = Buffer.from('EICAR-STANDARD-ANTIVIRUS-TEST-FILE', 'latin1').toString('hex');
  const sigName = `svc-r66-test-${process.pid}.ndb`;
  const signature = `${EICAR_SIGNATURE_NAME}:0:*:${hex}\n`;
  writeFileSync(join(db, sigName), signature);
  const isolated = canUnshare();
  let fallbackFile: string | null = null;
  if (!isolated) {
    // No private mount here: our signature file goes beside the system's, removed at stop.
    accessSync(CLAMAV_DB_DIR, constants.W_OK);
    fallbackFile = join(CLAMAV_DB_DIR, sigName);
    writeFileSync(fallbackFile, signature);
  }
  const port = await freePort();
  writeFileSync(
    join(dir, 'c-icap.conf'),
    [
      `PidFile ${dir}/c-icap.pid`,
      `CommandsSocket ${dir}/c-icap.ctl`,
      'Timeout 30',
      'StartServers 1',
      'MaxServers 2',
      'MinSpareThreads 2',
      'MaxSpareThreads 4',
      'ThreadsPerChild 4',
      `Port 127.0.0.1:${port}`,
      `TmpDir ${dir}/tmp`,
      'DebugLevel 1',
      'ModulesDir /usr/lib/x86_64-linux-gnu/c_icap',
      'ServicesDir /usr/lib/x86_64-linux-gnu/c_icap',
      'TemplateDir /usr/share/c_icap/templates/',
      'TemplateDefaultLanguage en',
      'LoadMagicFile /etc/c-icap/c-icap.magic',
      `ServerLog ${dir}/server.log`,
      `AccessLog ${dir}/access.log`,
      'Module common clamav_mod.so',
      'Service antivirus_module virus_scan.so',
      'ServiceAlias srv_clamav virus_scan',
      'ServiceAlias avscan virus_scan?allow204=on&sizelimit=off&mode=simple',
      'virus_scan.ScanFileTypes TEXT DATA EXECUTABLE ARCHIVE GIF JPEG MSOFFICE',
      'virus_scan.MaxObjectSize 50M',
      'virus_scan.DefaultEngine clamav',
      '',
    ].join('\n'),
  );
  const cmd = `exec c-icap -N -f '${dir}/c-icap.conf'`;
  const args = isolated ? ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', `mount --bind '${db}' ${CLAMAV_DB_DIR} && ${cmd}`] : ['sh', '-c', cmd];
  const stop = await launch('c-icap', args[0] as string, args.slice(1), port, join(dir, 'server.log'), () => {
    if (fallbackFile) rmSync(fallbackFile, { force: true });
    rmSync(dir, { recursive: true, force: true });
  });
  return { port, dir, stop };
}

// ---------------------------------------------------------------- proftpd

export const FTP_USER = 'tester';
export const FTP_PASSWORD = 'S3cret-pw!';

export function proftpdAvailable(): boolean {
  return existsSync('/usr/sbin/proftpd') && existsSync('/usr/lib/proftpd/mod_digest.so') && existsSync('/usr/lib/proftpd/mod_tls.so');
}

export interface FtpServer extends RunningServer {
  /** The user's home: what the FTP session sees as `/`. */
  home: string;
}

/**
 * Starts proftpd (standalone, not a daemon, our own configuration): one user in its own password
 * file, chrooted in `home`, mod_digest for XCRC/XMD5/XSHA*, mod_tls (explicit AUTH TLS, or implicit
 * when `implicitTls`), a directory `refused` where every command is denied and `readonly` where
 * STOR and APPE are.
 */
export async function startProftpd(opts: { implicitTls?: boolean } = {}): Promise<FtpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ftp-'));
  const run = join(dir, 'run');
  const home = join(dir, 'home');
  mkdirSync(run);
  mkdirSync(join(home, 'refused'), { recursive: true });
  mkdirSync(join(home, 'readonly'));
  // proftpd refuses a scoreboard in a world-writable directory; the session user (nobody) writes in home.
  execFileSync('chmod', ['755', dir, run]);
  execFileSync('chmod', ['777', home, join(home, 'readonly')]);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(run, 'key.pem'), '-out', join(run, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const hash = execFileSync('openssl', ['passwd', '-1', FTP_PASSWORD]).toString().trim();
  writeFileSync(join(run, 'passwd'), `${FTP_USER}:${hash}:65534:65534::${home}:/bin/sh\n`, { mode: 0o600 });
  const port = await freePort();
  const passive = await freePort();
  writeFileSync(
    join(run, 'proftpd.conf'),
    [
      'ServerType standalone',
      'ServerName "svc test"',
      'DefaultAddress 127.0.0.1',
      `Port ${port}`,
      `PidFile ${run}/proftpd.pid`,
      `ScoreboardFile ${run}/proftpd.scoreboard`,
      'DelayTable none',
      'User nobody',
      'Group nogroup',
      'WtmpLog off',
      'UseIPv6 off',
      'UseReverseDNS off',
      'AuthOrder mod_auth_file.c',
      `AuthUserFile ${run}/passwd`,
      'RequireValidShell off',
      'DefaultRoot ~',
      'AllowOverwrite on',
      'AllowStoreRestart on',
      'AllowForeignAddress on',
      `PassivePorts ${passive} ${Math.min(passive + 20, 65535)}`,
      'TransferLog none',
      `SystemLog ${run}/system.log`,
      'LoadModule mod_digest.c',
      'LoadModule mod_tls.c',
      'DigestEngine on',
      'DigestAlgorithms all',
      'TLSEngine on',
      'TLSProtocol TLSv1.2 TLSv1.3',
      `TLSRSACertificateFile ${run}/cert.pem`,
      `TLSRSACertificateKeyFile ${run}/key.pem`,
      'TLSRequired off',
      'TLSOptions NoSessionReuseRequired' + (opts.implicitTls ? ' UseImplicitSSL' : ''),
      `TLSLog ${run}/tls.log`,
      `<Directory ${home}/readonly>`,
      '  <Limit STOR APPE>',
      '    DenyAll',
      '  </Limit>',
      '</Directory>',
      `<Directory ${home}/refused>`,
      '  <Limit ALL>',
      '    DenyAll',
      '  </Limit>',
      '</Directory>',
      '',
    ].join('\n'),
  );
  const stop = await launch('proftpd', '/usr/sbin/proftpd', ['-n', '-c', join(run, 'proftpd.conf')], port, join(run, 'system.log'), () => rmSync(dir, { recursive: true, force: true }));
  return { port, dir, home, stop };
}

// ---------------------------------------------------------------- s3rver

export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET_KEY = 'S3RVER';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (opts: Record<string, unknown>) => S3rverInstance;

/** s3rver (an S3-compatible server from npm) in this process, on a free loopback port, files in a temporary directory. */
export async function startS3rver(): Promise<RunningServer & { url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  // s3rver ships no type declarations.
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await server.run();
  return {
    port,
    dir,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A pass-through HTTP proxy to `targetPort` that answers every PUT of an object's tags with
 * 501 NotImplemented, as an S3-compatible server without tagging does (s3rver accepts any tag).
 */
export async function refusingTagging(targetPort: number): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createHttpServer((req, res) => {
    if (req.method === 'PUT' && /[?&]tagging(=|&|$)/.test(req.url ?? '')) {
      req.resume();
      res.writeHead(501, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>tagging is not implemented here</Message></Error>');
      return;
    }
    const upstream = httpRequest({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** s3rver in a child process (the bench measures this process's memory alone). Run from the repository root. */
export async function startS3rverProcess(): Promise<RunningServer & { url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const port = await freePort();
  const script = `const S3rver = require('s3rver'); new S3rver({ port: ${port}, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)} }).run();`;
  const stop = await launch('s3rver', process.execPath, ['-e', script], port, join(dir, 'none'), () => rmSync(dir, { recursive: true, force: true }));
  return { port, dir, url: `http://127.0.0.1:${port}`, stop };
}
