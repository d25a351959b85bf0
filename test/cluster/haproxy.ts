/** A real haproxy (Debian's /usr/sbin/haproxy) in TCP mode on a free loopback port, for cluster tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/wait.js';

export interface Balancer {
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const accepts = (port: number): Promise<boolean> => new Promise((resolve) => {
  const c = createConnection({ host: '127.0.0.1', port }, () => { c.destroy(); resolve(true); });
  c.once('error', () => resolve(false));
});

/** The configuration docs/cluster.md shows, with the members' ports. */
export function haproxyConfig(port: number, members: number[]): string {
  return [
    'global', '  maxconn 1024',
    'defaults', '  mode tcp', '  timeout connect 5s', '  timeout client 10m', '  timeout server 10m',
    'frontend r66', `  bind 127.0.0.1:${port}`, '  default_backend members',
    'backend members', '  balance leastconn',
    ...members.map((p, i) => `  server m${i + 1} 127.0.0.1:${p} check inter 1s`),
    '',
  ].join('\n');
}

export async function startHaproxy(members: number[]): Promise<Balancer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-haproxy-'));
  const port = await freePort();
  const cfg = path.join(dir, 'haproxy.cfg');
  await writeFile(cfg, haproxyConfig(port, members));
  const proc: ChildProcess = spawn('/usr/sbin/haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    await waitFor(async () => {
      if (proc.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
      return accepts(port);
    }, { timeoutMs: 10_000, what: 'haproxy listening' });
  } catch (err) {
    proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
