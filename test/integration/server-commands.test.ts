// status / stop / restart tell the truth however the server was started (issue 22 item 2): the PID
// file is written in the foreground too, a stale one is detected, restart keeps the server in the
// background.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { isAlive, readPid } from '../../src/fs/pid-file.js';
import { waitFor } from '../helpers/wait.js';

let box: Sandbox;
let inst: Instance;
let env: NodeJS.ProcessEnv;
const running: Running[] = [];
const pidFile = (): string => join(inst.confDir, 'r66server.pid');

beforeEach(async () => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  env = { ...box.env, INSTANCES_CONF: join(box.dir, 'conf') };
  expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
});
afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  const pid = readPid(pidFile());
  if (pid !== undefined && pid !== process.pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  box.cleanup();
});

describe('server commands whatever the start mode', () => {
  it('a foreground server: status running, restart brings it back in the background, stop ends it', async () => {
    const fg = spawnCli('server', ['start'], env);
    running.push(fg);
    await waitFor(() => fg.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
    expect(readPid(pidFile())).toBe(fg.child.pid);
    expect(await runCli('server', ['status'], env)).toMatchObject({ code: 0, stdout: 'Status of hosta R66 Server... running\n' });

    const restart = await runCli('server', ['restart'], env);
    expect(restart.code).toBe(0);
    expect(restart.stdout).toContain('Stoping hosta R66 Server... done\n');
    expect(restart.stdout).toContain('started in the background');
    expect((await fg.exited).code).toBe(0);
    const second = readPid(pidFile()) as number;
    expect(second).not.toBe(fg.child.pid);
    expect(isAlive(second)).toBe(true);

    expect(await runCli('server', ['stop'], env)).toMatchObject({ code: 0, stdout: 'Stoping hosta R66 Server... done\n' });
    expect(isAlive(second)).toBe(false);
    expect(existsSync(pidFile())).toBe(false);
  });

  it('a PID file that cannot be written is reported, the server runs on', async () => {
    const fg = spawnCli('server', ['start'], { ...env, PIDFILE: '/dev/null/r66server.pid' });
    running.push(fg);
    await waitFor(() => fg.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
    expect(fg.stderr()).toContain('cannot write the PID file /dev/null/r66server.pid (ENOTDIR)');
    fg.child.kill('SIGTERM');
    expect((await fg.exited).code).toBe(0);
  });

  it('a stale PID file (process gone, or another program) reads as not running and is replaced at start', async () => {
    // This test process is alive but is not a server.
    writeFileSync(pidFile(), `${process.pid}\n`);
    expect(await runCli('server', ['status'], env)).toMatchObject({ code: 1, stdout: 'Status of hosta R66 Server... not running\n' });
    expect(await runCli('server', ['stop'], env)).toMatchObject({ code: 1, stdout: 'Stoping hosta R66 Server... no process seems to be running\n' });
    expect(existsSync(pidFile())).toBe(false);
    writeFileSync(pidFile(), '999999999\n');
    const fg = spawnCli('server', ['start'], env);
    running.push(fg);
    await waitFor(() => readPid(pidFile()) === fg.child.pid, { what: 'the PID file rewritten by the new server', timeoutMs: 20_000 });
    fg.child.kill('SIGTERM');
    expect((await fg.exited).code).toBe(0);
    expect(existsSync(pidFile())).toBe(false);
  });
});
