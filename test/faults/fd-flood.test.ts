/**
 * Issue 32, "20,600 idle connections on the monitoring port used all file handles; incoming R66
 * transfers then failed (EMFILE logged at INFO only)", on a real server: hostb runs with an
 * open-file limit of 512 (prlimit, soft and hard), so its listeners together may hold 256
 * connections (maxtotalconnections' default: the limit minus max(256, limit / 4)). 600 idle sockets
 * from 40 addresses reconnect to its web monitoring port as soon as they are closed, while hosta
 * sends files to it over R66: every file arrives, identical; hostb never holds more than its limit
 * of descriptors, never logs an EMFILE, says the total was reached at WARN, and stops cleanly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Child } from '../../bench/lib/child.js';
import { freePort, writeHomes, type Home } from '../../bench/svc/homes.js';
import { runSvc } from '../cluster/processes.js';
import { waitFor } from '../helpers/wait.js';
import { IdleFlood, loopbackAddresses } from '../net/idle-flood.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const NOFILE = 512;
const FILES = 6;

/** `home`'s server started with an open-file limit of `nofile` (soft and hard: Node raises the soft one to the hard). */
async function startLimitedServer(home: Home, nofile: number): Promise<Child> {
  const env: NodeJS.ProcessEnv = { ...process.env, CONFDIR: home.confDir };
  for (const v of ['SVC_R66_HOME', 'INSTANCES_CONF', 'PIDFILE', 'SVC_SERVICE', 'SVC_R66_DAEMON']) delete env[v];
  const server = new Child('svc-r66server start', 'prlimit', [`--nofile=${nofile}:${nofile}`, process.execPath, join(ROOT, 'bin/svc-r66server.js'), 'start'], { env, cwd: home.confDir });
  await server.waitText('is running', 60_000);
  return server;
}

/** Descriptors the process `pid` holds now. */
function descriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

describe('a host whose web monitoring port is flooded beyond its open-file limit', () => {
  let root: string;
  const children: Child[] = [];
  afterAll(async () => {
    for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('keeps receiving R66 transfers, never runs out of descriptors, says so at WARN', async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-fdflood-'));
    const { a, b, run } = await writeHomes(root, { runLimit: 4, digest: 5 });
    const httpPort = await freePort();
    const bXml = join(b.confDir, 'server.xml');
    writeFileSync(bXml, readFileSync(bXml, 'utf8').replace('<serverhttpport>0</serverhttpport>', `<serverhttpport>${httpPort}</serverhttpport>`));
    for (const c of run) await runSvc(c.side, c.home, c.args);
    const hostb = await startLimitedServer(b, NOFILE);
    children.push(hostb);
    expect(readFileSync(`/proc/${hostb.pid}/limits`, 'utf8')).toMatch(new RegExp(`Max open files\\s+${NOFILE}\\s+${NOFILE}`));

    const flood = new IdleFlood(httpPort, loopbackAddresses(40, 900), 15, true, 20).start();
    let most = 0;
    const sample = setInterval(() => { try { most = Math.max(most, descriptors(hostb.pid)); } catch { /* exited: seen below */ } }, 20);
    try {
      await waitFor(() => hostb.stdout().includes('maxtotalconnections 256 reached'), { what: 'hostb at its total of connections', timeoutMs: 30_000 });
      const sums = new Map<string, string>();
      for (let i = 0; i < FILES; i++) {
        const data = randomBytes(200_000 + i);
        const name = `fd${i}.dat`;
        writeFileSync(join(a.outDir, name), data);
        sums.set(name, createHash('sha256').update(data).digest('hex'));
        // Each send a new R66 connection to hostb while the flood holds its total.
        await runSvc('client', a, ['send', '-to', b.id, '-rule', 'send', '-file', name]);
      }
      const arrived = readdirSync(b.inDir);
      for (const [name, sum] of sums) {
        const copies = arrived.filter((f) => f === name || f.endsWith(`_${name}`));
        expect(copies, name).toHaveLength(1);
        expect(createHash('sha256').update(readFileSync(join(b.inDir, copies[0]!))).digest('hex'), name).toBe(sum);
      }
      expect(flood.opened).toBeGreaterThan(600);
    } finally {
      clearInterval(sample);
      await flood.stop();
    }
    console.log(`fd-flood: ${flood.opened} flood connections opened, hostb held at most ${most} descriptors (limit ${NOFILE}), ${FILES} files received`);
    expect(hostb.proc.exitCode).toBeNull();
    expect(most).toBeGreaterThan(256);
    expect(most).toBeLessThan(NOFILE);
    const out = hostb.stdout() + hostb.stderr();
    expect(out).not.toMatch(/EMFILE|ENFILE|out of file descriptors/);
    const warn = out.split('\n').find((l) => l.includes('maxtotalconnections 256 reached')) ?? '';
    expect(JSON.parse(warn)).toMatchObject({ level: 40 });
    await hostb.stop('SIGTERM');
    expect((await hostb.exited).code).toBe(0);
  }, 240_000);
});
