/** Debian's snmptrapd and a free UDP port, for the SNMP tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { waitFor } from '../helpers/wait.js';

export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** snmptrapd in the foreground, logging every notification (numeric OIDs) to its stdout. */
export async function startTrapd(dir: string): Promise<{ port: number; out: () => string; stop: () => Promise<void> }> {
  const port = await freeUdpPort();
  const conf = path.join(dir, 'snmptrapd.conf');
  await writeFile(conf, 'authCommunity log public\ncreateUser v3notify\nauthUser log v3notify noauth\n');
  let out = '';
  const child: ChildProcess = spawn('snmptrapd', ['-f', '-Lo', '-On', '-C', '-c', conf, `udp:127.0.0.1:${port}`], {
    env: { ...process.env, SNMP_PERSISTENT_DIR: path.join(dir, 'persist'), MIBS: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { out += d.toString(); });
  await waitFor(() => out.includes('NET-SNMP version'), { timeoutMs: 10_000, what: 'snmptrapd to start' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Resolves once it has exited: it writes its persistent directory on the way out.
  const stop = async (): Promise<void> => { child.kill('SIGTERM'); await exited; };
  return { port, out: () => out, stop };
}
