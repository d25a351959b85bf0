// REST limits against hostile callers (issue 21 items 3 and 7): body limits while reading, the
// failed-authentication lockout, passwords hidden from READONLY callers, and a listener without
// restsigkey (Basic only, HMAC and signatures refused with a message). SQLite only: nothing here
// depends on the dialect.
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { ADMIN, basic, startHarness, type Harness, type HarnessOptions } from './harness.js';
import { v1 } from './v1-client.js';

async function call(h: Harness, method: string, path: string, opts: { auth?: string; body?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth !== undefined) headers.authorization = opts.auth;
  if (opts.body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const res = await fetch(h.base + path, { method, headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** A chunked body (no Content-Length) of `size` bytes; resolves with the status. */
function chunked(h: Harness, path: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(h.base + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: ADMIN } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err) => (err.message.includes('EPIPE') || err.message.includes('ECONNRESET') ? resolve(413) : reject(err)));
    const piece = Buffer.alloc(16 * 1024, 0x20);
    for (let sent = 0; sent < size; sent += piece.length) req.write(piece);
    req.end();
  });
}

let db: TestDatabase | undefined;
let h: Harness | undefined;
async function start(opts: Omit<HarnessOptions, 'settings'> = {}): Promise<Harness> {
  db = await testDialects()[0]!.create();
  h = await startHarness({ settings: db!.settings, ...opts });
  return h;
}
afterEach(async () => {
  await h?.close();
  await db?.drop();
  h = undefined;
  db = undefined;
});

describe('REST limits', () => {
  it('refuses a body above the route limit while reading, anonymous or not; import routes take more', async () => {
    const h = await start({ security: { restBodyLimit: 1024, restImportBodyLimit: 64 * 1024 } });
    const big = `{"filler":"${'x'.repeat(4000)}"}`;
    expect((await call(h, 'POST', '/v2/transfers', { body: big })).status).toBe(413);
    expect((await call(h, 'POST', '/v2/transfers', { body: big, auth: ADMIN })).status).toBe(413);
    expect(await chunked(h, '/v2/hosts', 256 * 1024)).toBe(413);
    // The import route reads it (then refuses it for what it is, not for its size).
    expect((await call(h, 'PUT', '/v2/server/config', { body: big, auth: ADMIN })).status).not.toBe(413);
    expect((await call(h, 'PUT', '/v2/server/config', { body: 'x'.repeat(65 * 1024), auth: ADMIN })).status).toBe(413);
  });

  it('logs failed authentications and locks out the address after N failures, then lets it in again', async () => {
    const h = await start({ security: { restMaxAuthFailures: 3, restLockoutMs: 400 } });
    for (let i = 0; i < 3; i++) expect((await call(h, 'GET', '/v2/hosts', { auth: basic('restadmin', `wrong${i}`) })).status).toBe(401);
    // Locked: the right password is refused too, and so is another user from the same address.
    expect((await call(h, 'GET', '/v2/hosts', { auth: ADMIN })).status).toBe(401);
    expect((await v1(h, 'GET', '/hosts/hostb', { user: 'v1user', password: 'v1pwd' })).status).toBe(401);
    const log = h.logLines.join('\n');
    expect(log).toMatch(/REST authentication failed/);
    expect(log).toMatch(/"user":"restadmin"/);
    expect(log).toMatch(/"ip":"127\.0\.0\.1"/);
    expect(log).toMatch(/locked out/);
    expect(log).not.toMatch(/wrong0|wrong1|s3cret/);
    const until = Date.now() + 5000;
    let status = 0;
    while (Date.now() < until && (status = (await call(h, 'GET', '/v2/hosts', { auth: ADMIN })).status) !== 200) await new Promise((r) => setTimeout(r, 100));
    expect(status).toBe(200);
  });

  it('answers a malformed field holding integers with 400, not 500 (BigInt in the message)', async () => {
    const h = await start();
    const r = await call(h, 'POST', '/v2/transfers', { auth: ADMIN, body: '{"ruleName":"r","filename":"f","requested":"hostb","blockSize":[1,2],"start":{"at":3}}' });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/blockSize/);
  });

  it('refuses connections beyond httpmaxconnectionsperaddress at accept, logged once for the address', async () => {
    const h = await start({ security: { httpMaxConnectionsPerAddress: 2 } });
    const port = Number(new URL(h.base).port);
    const open = (): Promise<Socket> => new Promise((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
      s.on('error', () => undefined);
    });
    const held = [await open(), await open()];
    const extra = [await open(), await open()];
    await Promise.all(extra.map((s) => new Promise((resolve) => s.once('close', resolve))));
    expect(h.logLines.filter((l) => l.includes('connection refused (httpmaxconnectionsperaddress 2 reached)'))).toHaveLength(1);
    for (const s of held) s.destroy();
    const until = Date.now() + 5000;
    let status = 0;
    while (Date.now() < until && (status = await call(h, 'GET', '/v2/hosts', { auth: ADMIN }).then((r) => r.status, () => 0)) !== 200) await new Promise((r) => setTimeout(r, 50));
    expect(status).toBe(200);
  });

  it('shows stored passwords only to callers with the HOST role', async () => {
    const h = await start();
    const ro = await call(h, 'GET', '/v2/hosts', { auth: basic('monitor', 'monpwd') });
    expect(ro.status).toBe(200);
    const passwords = (ro.json().results as Array<{ password: string }>).map((r) => r.password);
    expect(passwords.every((p) => p === '')).toBe(true);
    expect((await call(h, 'GET', '/v2/hosts/hostb', { auth: basic('monitor', 'monpwd') })).json().password).toBe('');
    expect((await call(h, 'GET', '/v2/hosts/hostb', { auth: ADMIN })).json().password).not.toBe('');
  });
});

describe('a REST listener with authentication and no restsigkey (issue 21 item 7)', () => {
  it('accepts Basic, signed or not, and refuses HMAC, signatures and v1 saying why', async () => {
    const h = await start({ rest: { authenticated: true, signature: true, sigKey: undefined } });
    expect((await call(h, 'GET', '/v2/hosts', { auth: ADMIN })).status).toBe(200);
    const created = await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":"hostz","address":"10.0.0.9","port":6666,"password":"p"}' });
    expect(created.status).toBe(201);
    const stamp = new Date().toISOString();
    const hmac = await call(h, 'GET', '/v2/hosts', { auth: `HMAC ${createHmac('sha256', 'k').update(stamp).digest('hex')}`, headers: { 'x-auth-user': 'restadmin', 'x-auth-timestamp': stamp } });
    expect(hmac.status).toBe(401);
    expect(hmac.text).toMatch(/no restsigkey is configured; use Basic authentication/);
    const signed = await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":"hosty","address":"a","port":1,"password":"p"}', headers: { 'x-auth-signature': '00' } });
    expect(signed.status).toBe(401);
    expect(signed.text).toMatch(/no restsigkey/);
    const old = await v1(h, 'GET', '/hosts/hostb', { user: 'v1user', password: 'v1pwd', key: '00' });
    expect(old.status).toBe(401);
    expect(old.text).toMatch(/no restsigkey/);
  });
});
