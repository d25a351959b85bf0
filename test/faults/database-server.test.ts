/**
 * The server process when its SQLite database changes under it (issue 21 item 5): the -shm file
 * truncated by another process used to kill it with SIGBUS at the next statement (the transfer
 * scheduler's poll), and so did its files made unwritable (`chattr +i`, issue 32). Now it logs one
 * clear error, keeps running, and stops cleanly on SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { canMakeImmutable } from './immutable.js';

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

/** initdb, then the server started; resolves once it runs. */
async function startServer(): Promise<Running> {
  expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
  server = spawnCli('server', ['start'], env);
  const running = server;
  await waitFor(() => running.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
  return running;
}

/** The one "database unusable" error's text, once logged, and the scheduler's later polls failing without saying it again. */
async function unusableOnce(running: Running): Promise<string> {
  await waitFor(() => running.stdout().includes('database unusable'), { what: 'the database error', timeoutMs: 15_000 });
  const line = running.stdout().split('\n').find((l) => l.includes('database unusable')) as string;
  // Said once, though the scheduler keeps polling (and failing) every 200 ms.
  const scanFailures = (): number => running.stdout().split('"msg":"scheduler scan failed"').length - 1;
  await waitFor(() => scanFailures() >= 2, { what: 'later scheduler polls' });
  expect(running.child.exitCode).toBeNull();
  expect(running.stdout().split('database unusable').length).toBe(2);
  return JSON.parse(line).err as string;
}

/** SIGTERM: exit 0 after the ordered stop. */
async function stopsCleanly(running: Running): Promise<void> {
  running.child.kill('SIGTERM');
  const result = await running.exited;
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('"msg":"server stopped"');
}

it('a -shm truncated by another process: one error logged, the server stays up and stops cleanly', async () => {
  const running = await startServer();
  const shm = `${inst.sqliteFile}-shm`;
  await waitFor(() => existsSync(shm), { what: 'the -shm file' });
  truncateSync(shm, 0);
  expect(await unusableOnce(running)).toContain('had its shared-memory file (-shm) truncated by another process');
  await stopsCleanly(running);
});

it('SQLite files made unwritable while it runs: one clear error, no SIGBUS, a clean stop', async (ctx) => {
  if (!canMakeImmutable()) {
    ctx.skip('chattr +i needs root and a file system with attributes');
    return;
  }
  const running = await startServer();
  const files = [inst.sqliteFile, `${inst.sqliteFile}-wal`, `${inst.sqliteFile}-shm`];
  await waitFor(() => files.every((f) => existsSync(f)), { what: 'the WAL files' });
  // Immutable: even root cannot write them; SQLite's next write of its -shm mapping was a SIGBUS (exit 135).
  execFileSync('chattr', ['+i', ...files]);
  try {
    expect(await unusableOnce(running)).toMatch(/^the database file .* cannot be written \(EPERM\): no database work is possible until it can be written again$/);
    // Stopped while the files are still immutable: closing SQLite (a checkpoint through the
    // mapping) would be the SIGBUS too; the server leaves it to its exit.
    await stopsCleanly(running);
  } finally {
    execFileSync('chattr', ['-i', ...files]);
  }
});
