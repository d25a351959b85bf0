/**
 * Real servers for the network task tests, started on loopback with free ports and stopped after:
 * c-icap with virus_scan + clamav (a local EICAR signature database, nothing downloaded), proftpd
 * (plain and TLS, mod_digest), s3rver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../helpers/wait.js';

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

function logOf(dir: string, name: string): string {
  const p = join(dir, name);
  return existsSync(p) ? readFileSync(p, 'utf8').slice(-2000) : '';
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
  const child = isolated
    ? spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `mount --bind '${db}' ${CLAMAV_DB_DIR} && ${cmd}`], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn('sh', ['-c', cmd], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const stop = async (): Promise<void> => {
    await stopGroup(child);
    if (fallbackFile) rmSync(fallbackFile, { force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => child.exitCode === null && (await accepts(port)), { timeoutMs: 20_000, what: 'c-icap to listen' });
  } catch (err) {
    const why = `${(err as Error).message}\n${stderr.slice(-2000)}\n${logOf(dir, 'server.log')}`;
    await stop();
    throw new Error(why);
  }
  return { port, dir, stop };
}
