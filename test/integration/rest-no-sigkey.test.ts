// Issue 21 item 7 through the real CLI: the original's server.xml with a `rest` section that asks for
// authentication and signatures but names no `restsigkey` loads for `initdb` and `start`; REST then
// takes Basic authentication and refuses HMAC with a message saying why.
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/server/ports.js';
import { hasNoStack, runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';

let box: Sandbox;
let inst: Instance;
let server: Running | undefined;

beforeEach(() => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
});
afterEach(() => {
  if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  server = undefined;
  box.cleanup();
});

/** The original's `rest` section (as its sample server.xml), without the restsigkey element. */
function addRestWithoutKey(port: number): void {
  const file = join(inst.confDir, 'server.xml');
  const rest = `<rest><restaddress>127.0.0.1</restaddress><restport>${port}</restport><restssl>false</restssl>`
    + '<restauthenticated>true</restauthenticated><resttimelimit>30000</resttimelimit><restsignature>true</restsignature>'
    + '<restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest>';
  writeFileSync(file, readFileSync(file, 'utf8').replace('</config>', `  ${rest}\n</config>`));
}

describe('server.xml with a rest section and no restsigkey, through svc-r66server (issue 21 item 7)', () => {
  it('initdb and start succeed; Basic gets 200 and HMAC 401 with the reason', async () => {
    const port = await freePort();
    addRestWithoutKey(port);
    expect(readFileSync(join(inst.confDir, 'server.xml'), 'utf8')).not.toContain('restsigkey');
    const env = { ...box.env, CONFDIR: inst.confDir };
    const init = await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml')], env);
    expect(init.code, init.stderr).toBe(0);

    const s = spawnCli('server', ['start'], env);
    server = s;
    await waitFor(() => s.stdout().includes('is running') || s.child.exitCode !== null, { what: 'the running banner', timeoutMs: 20_000 });
    expect(s.child.exitCode, s.stderr()).toBeNull();
    // The operator is told at startup what the missing key means.
    expect(s.stdout() + s.stderr()).toMatch(/no restsigkey; REST accepts Basic authentication only/);

    const url = `http://127.0.0.1:${port}/v2/server/status`;
    // writeInstance's hosta is an administrator partner with the password "password".
    const basic = await fetch(url, { headers: { authorization: `Basic ${Buffer.from('hosta:password').toString('base64')}` } });
    expect(basic.status).toBe(200);

    const stamp = new Date().toISOString();
    const hmac = await fetch(url, {
      headers: { authorization: `HMAC ${createHmac('sha256', 'any').update(`${stamp}hostapassword`).digest('hex')}`, 'x-auth-user': 'hosta', 'x-auth-timestamp': stamp },
    });
    expect(hmac.status).toBe(401);
    const text = await hmac.text();
    expect(text).toMatch(/no restsigkey is configured; use Basic authentication/);
    expect(hasNoStack(text)).toBe(true);

    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
  });
});
