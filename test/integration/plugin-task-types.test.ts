/**
 * Task types brought by extendTaskFactory plug-ins (docs/plugins/) are known wherever rules are
 * loaded, as the engine knows them: the rule files of the no-database mode (server and client),
 * the client's own engine, the REST v2 and v1 rule requests and the configuration import. Real
 * processes: a svc-r66server without database (plug-ins, REST) and a svc-r66client without
 * database sending it a file; the plug-ins are docs/plugins/stamp-plugin.mjs (type STAMP) and a
 * module of this test that brings S3PUT (a type the built-ins cannot run).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/server/ports.js';
import { PASSWORD_HEX, runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import type { Harness } from '../http/harness.js';
import { v1 } from '../http/v1-client.js';
import { waitFor } from '../helpers/wait.js';

const STAMP_PLUGIN = resolve('docs/plugins/stamp-plugin.mjs');
const S3_PLUGIN = `export const taskTypes = {
  S3PUT: { async run() { return { kind: 'success' }; } },
};
`;

const entry = (id: string, port: number, admin = false): string =>
  `<entry><hostid>${id}</hostid><address>127.0.0.1</address><port>${port}</port>${admin ? '<admin>true</admin>' : ''}<key>${PASSWORD_HEX}</key></entry>`;
const task = (type: string, path: string): string => `<task><type>${type}</type><path>${path}</path><delay>0</delay></task>`;
const factories = (list: string[]): string => `<extendTaskFactory><extendedtaskfactories>${list.join(',')}</extendedtaskfactories></extendTaskFactory>`;

/** Adds `xml` at the end of the root element of an XML file. */
function append(file: string, xml: string): void {
  writeFileSync(file, readFileSync(file, 'utf8').replace(/<\/config>\s*$/, `${xml}\n</config>\n`));
}

let box: Sandbox;
let b: Instance;
let server: Running;
let r66Port: number;
let restPort: number;

beforeEach(async () => {
  box = sandbox();
  const s3Plugin = join(box.dir, 's3-plugin.mjs');
  writeFileSync(s3Plugin, S3_PLUGIN);
  // hostb: a server without database; its rules are the files of <serverhome>/conf.
  b = writeInstance(join(box.dir, 'conf', 'hostb'), { hostId: 'hostb', db: null });
  restPort = await freePort();
  writeFileSync(join(b.confDir, 'rest.key'), 'a-signature-key-of-this-test');
  append(join(b.confDir, 'server.xml'), factories([STAMP_PLUGIN, s3Plugin])
    + `<rest><restaddress>127.0.0.1</restaddress><restport>${restPort}</restport><restsignature>false</restsignature><restauthenticated>true</restauthenticated>`
    + `<restsigkey>${join(b.confDir, 'rest.key')}</restsigkey><restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest>`);
  // v1admin: a client-only partner (negative port), the only kind REST v1 accepts as user.
  writeFileSync(join(b.confDir, 'authent.xml'), `<authent>${entry('hostb', 6666, true)}${entry('hosta', 6667)}${entry('v1admin', -1, true)}</authent>\n`);
  mkdirSync(join(b.serverHome, 'conf'), { recursive: true });
  writeFileSync(join(b.serverHome, 'conf', 'send.rule.xml'), `<rule><idrule>send</idrule><hostids/><mode>1</mode><rposttasks><tasks>
    ${task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#')}${task('STAMP', 'received')}</tasks></rposttasks></rule>\n`);
  server = spawnCli('server', ['start'], { ...box.env, CONFDIR: b.confDir });
  r66Port = Number(await waitFor(() => /R66 plain listening on port (\d+)/.exec(server.stdout())?.[1], { what: 'hostb listening', timeoutMs: 20_000 }));
  await waitFor(() => server.stdout().includes('is running'), { what: 'hostb running', timeoutMs: 20_000 });
}, 60_000);

afterEach(async () => {
  if (server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  box.cleanup();
});

/** REST v2 call as hostb (an admin partner; its key is the encrypted "password"). */
async function v2(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${restPort}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from('hostb:password').toString('base64')}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

describe('plug-in task types wherever rules are loaded', () => {
  it('no-database server and client: the plug-in type of their rule files runs on both sides of a real transfer', async () => {
    expect(server.stdout()).not.toContain('unknown type');
    // hosta: a client without database, the STAMP plug-in in client.xml, STAMP in its rule file.
    const a = writeInstance(join(box.dir, 'conf', 'hosta'), { hostId: 'hosta', db: null });
    append(join(a.confDir, 'client.xml'), factories([STAMP_PLUGIN]));
    writeFileSync(join(a.confDir, 'authent.xml'), `<authent>${entry('hosta', 6667, true)}${entry('hostb', r66Port)}</authent>\n`);
    mkdirSync(join(a.serverHome, 'conf'), { recursive: true });
    writeFileSync(join(a.serverHome, 'conf', 'send.rule.xml'), `<rule><idrule>send</idrule><hostids/><mode>1</mode><sposttasks><tasks>
      ${task('STAMP', 'sent')}</tasks></sposttasks></rule>\n`);
    mkdirSync(join(a.serverHome, 'out'), { recursive: true });
    writeFileSync(join(a.serverHome, 'out', 'hello.txt'), 'hello');

    const sent = await runCli('client', ['send', '-to', 'hostb', '-rule', 'send', '-file', 'hello.txt'], { ...box.env, CONFDIR: a.confDir });
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(sent.stderr).not.toContain('unknown');
    expect(readFileSync(join(b.serverHome, 'in', 'hello.txt'), 'utf8')).toBe('hello');
    const received = join(b.serverHome, 'in', 'hello.txt.stamp');
    await waitFor(() => existsSync(received), { what: 'the receiver stamp' });
    expect(readFileSync(received, 'utf8')).toMatch(/Z received\n$/);
    expect(readFileSync(join(a.serverHome, 'out', 'hello.txt.stamp'), 'utf8')).toMatch(/Z sent\n$/);
  }, 60_000);

  it('REST v2 and v1 rule requests and the configuration import accept the types the server\'s plug-ins bring', async () => {
    const created = await v2('POST', '/v2/rules', { name: 'stamped', mode: 'send', rPostTasks: [{ type: 'STAMP', arguments: 'x', delay: 0 }] });
    expect(created.status, created.text).toBe(201);
    const s3 = await v2('POST', '/v2/rules', { name: 's3v2', mode: 'send', sErrorTasks: [{ type: 'S3PUT', arguments: '-bucket b', delay: 0 }] });
    expect(s3.status, s3.text).toBe(201);
    const updated = await v2('PUT', '/v2/rules/stamped', { rPreTasks: [{ type: 'S3PUT', arguments: '-bucket b', delay: 0 }] });
    expect(updated.status, updated.text).toBe(201);
    const read = JSON.parse((await v2('GET', '/v2/rules/stamped')).text) as { rPreTasks: unknown[]; rPostTasks: unknown[] };
    expect(read.rPostTasks).toEqual([{ type: 'STAMP', arguments: 'x', delay: 0 }]);
    expect(read.rPreTasks).toEqual([{ type: 'S3PUT', arguments: '-bucket b', delay: 0 }]);
    // The exact case stays required, and a type nothing registers is still refused.
    expect((await v2('POST', '/v2/rules', { name: 'lower', mode: 'send', rPostTasks: [{ type: 'stamp', arguments: 'x', delay: 0 }] })).status).toBe(400);
    expect((await v2('POST', '/v2/rules', { name: 'nope', mode: 'send', rPostTasks: [{ type: 'NOPE', arguments: 'x', delay: 0 }] })).status).toBe(400);

    const h = { base: `http://127.0.0.1:${restPort}` } as Harness;
    const tasks = `<tasks>${task('S3PUT', '-bucket b')}${task('STAMP', 'v1')}</tasks>`;
    const v1Created = await v1(h, 'POST', '/rules', { user: 'v1admin', key: null, body: JSON.stringify({ IDRULE: 's3v1', MODETRANS: 1, RPOSTTASKS: tasks }) });
    expect(v1Created.status, v1Created.text).toBe(200);
    const v1Read = await v1(h, 'GET', '/rules/s3v1', { user: 'v1admin', key: null });
    expect(v1Read.text).toContain('S3PUT');
    expect(v1Read.text).toContain('STAMP');

    // The import reads only inside the host's directories (issue 21 item 4): its conf directory here.
    const rulesFile = join(b.serverHome, 'conf', 'import.rules.xml');
    writeFileSync(rulesFile, `<rules><rule><idrule>imported</idrule><hostids/><mode>1</mode><rposttasks><tasks>${task('STAMP', 'i')}${task('S3PUT', '-bucket b')}</tasks></rposttasks></rule></rules>\n`);
    const imported = await v2('PUT', `/v2/server/config?rulesFile=${encodeURIComponent(rulesFile)}`);
    expect(imported.status, imported.text).toBe(200);
    const importedRule = JSON.parse((await v2('GET', '/v2/rules/imported')).text) as { rPostTasks: Array<{ type: string }> };
    expect(importedRule.rPostTasks.map((t) => t.type)).toEqual(['STAMP', 'S3PUT']);
    // A type nothing registers is skipped, as every rule file load skips it (tasks.md §1.5): the rest of the rule is imported.
    writeFileSync(rulesFile, `<rules><rule><idrule>withnope</idrule><hostids/><mode>1</mode><rposttasks><tasks>${task('STAMP', 'n')}${task('NOPE', 'x')}</tasks></rposttasks></rule></rules>\n`);
    const withNope = await v2('PUT', `/v2/server/config?rulesFile=${encodeURIComponent(rulesFile)}`);
    expect(withNope.status, withNope.text).toBe(200);
    const nopeRule = JSON.parse((await v2('GET', '/v2/rules/withnope')).text) as { rPostTasks: Array<{ type: string }> };
    expect(nopeRule.rPostTasks.map((t) => t.type)).toEqual(['STAMP']);
  }, 60_000);
});
