/**
 * The server process when its SQLite database changes under it (issue 21 item 5): the -shm file
 * truncated by another process used to kill it with SIGBUS at the next statement (the transfer
 * scheduler's poll). Now it logs one clear error, keeps running, and stops cleanly on SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';

let box: Sandbox;
let inst: Instance;
let env: NodeJS.ProcessEnv;
let server: Running | undefined;

beforeEach(() => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  env = { ...box.env, INSTANCES_CONF: join(box.dir, 'conf') };
  // The transfer scheduler polls RUNNER every 200 ms: the database is used without any client.
  const serverXml = join(inst.confDir, 'server.xml');
  writeFileSync(serverXml, readFileSync(serverXml, 'utf8').replace('<limit>', '<limit><delaycommand>200</delaycommand>'));
});
afterEach(() => {
  if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  box.cleanup();
});

it('a -shm truncated by another process: one error logged, the server stays up and stops cleanly', async () => {
  expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
  server = spawnCli('server', ['start'], env);
  const running = server;
  await waitFor(() => running.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
  const shm = `${inst.sqliteFile}-shm`;
  await waitFor(() => existsSync(shm), { what: 'the -shm file' });
  truncateSync(shm, 0);
  await waitFor(() => running.stdout().includes('database unusable'), { what: 'the database error', timeoutMs: 15_000 });
  const line = running.stdout().split('\n').find((l) => l.includes('database unusable')) as string;
  expect(JSON.parse(line).err).toContain('had its shared-memory file (-shm) truncated by another process');
  // Said once, though the scheduler keeps polling (and failing) every 200 ms.
  const scanFailures = (): number => running.stdout().split('"msg":"scheduler scan failed"').length - 1;
  await waitFor(() => scanFailures() >= 2, { what: 'later scheduler polls' });
  expect(running.child.exitCode).toBeNull();
  expect(running.stdout().split('database unusable').length).toBe(2);
  running.child.kill('SIGTERM');
  const result = await running.exited;
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('"msg":"server stopped"');
});

/** chattr +i works here (root on a file system with attributes, as CI's ext4 /tmp). */
function canMakeImmutable(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = `${dir}/chattr-probe`;
  try {
    writeFileSync(probe, '');
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

it('SQLite files made unwritable while it runs: one clear error, no SIGBUS, a clean stop', async (ctx) => {
  if (!canMakeImmutable(box.dir)) {
    ctx.skip('chattr +i needs root and a file system with attributes');
    return;
  }
  expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
  server = spawnCli('server', ['start'], env);
  const running = server;
  await waitFor(() => running.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
  const files = [inst.sqliteFile, `${inst.sqliteFile}-wal`, `${inst.sqliteFile}-shm`];
  await waitFor(() => files.every((f) => existsSync(f)), { what: 'the WAL files' });
  // Immutable: even root cannot write them; SQLite's next write of its -shm mapping was a SIGBUS (exit 135).
  execFileSync('chattr', ['+i', ...files]);
  try {
    await waitFor(() => running.stdout().includes('database unusable'), { what: 'the database error', timeoutMs: 15_000 });
    const line = running.stdout().split('\n').find((l) => l.includes('database unusable')) as string;
    expect(JSON.parse(line).err).toMatch(/^the database file .* cannot be written \(EPERM\): no database work is possible until it can be written again$/);
    const scanFailures = (): number => running.stdout().split('"msg":"scheduler scan failed"').length - 1;
    await waitFor(() => scanFailures() >= 2, { what: 'later scheduler polls' });
    expect(running.child.exitCode).toBeNull();
    expect(running.stdout().split('database unusable').length).toBe(2);
    // Stopped while the files are still immutable: closing SQLite (a checkpoint through the
    // mapping) would be the SIGBUS too; the server leaves it to its exit.
    running.child.kill('SIGTERM');
    const result = await running.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"msg":"server stopped"');
  } finally {
    execFileSync('chattr', ['-i', ...files]);
  }
});
