// issue 34 item 4: a local submission (asend, as the original) sends any file the process can read;
// REST keeps the host's directories, plus those server.xml lists in directory/readabledirs: v2's
// orders and v1's table editor alike (a v1 row is run by the server's engine, which trusts the
// rows it runs to have been checked when written).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { runCli, sandbox, sqliteRows, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, receivedFile, rest, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { writeClientXml } from './migrate-helpers.js';
import { javaStamp, signV1 } from '../http/v1-client.js';

/** A REST v1 call by v1admin signed as rest-v1.md §5.2 says (the node's signature key). */
async function restV1(node: Node, method: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const stamp = javaStamp(new Date());
  const key = signV1(path, stamp, 'v1admin', 'password', readFileSync(join(node.confDir, 'rest.key')));
  const res = await fetch(`http://127.0.0.1:${node.restPort}${path}`, {
    method, body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-auth-user': 'v1admin', 'x-auth-timestamp': stamp, 'x-auth-key': key },
  });
  const text = await res.text();
  return { status: res.status, json: text };
}

describe('files outside the host directories', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;
  let listed: string;
  let unlisted: string;

  beforeEach(async () => {
    box = sandbox();
    // v1admin: REST v1's users are client-only partners (negative port).
    listed = join(box.dir, 'exports');
    unlisted = join(box.dir, 'elsewhere');
    // relay: the receiver's TRANSFER task sends a file from outside its directories back to hosta.
    const relay = { 'relay.rule.xml': `<rule><idrule>relay</idrule><hostids/><mode>1</mode><rposttasks><tasks><task><type>TRANSFER</type><path>-to hosta -file ${join(unlisted, 'by-task.txt')} -rule send</path><delay>0</delay></task></tasks></rposttasks></rule>\n` };
    const rules = { ...SEND_RULE, ...relay };
    ({ a, b } = await writeNodePair(box, { rules, rest: true, partners: [{ id: 'v1admin', port: -1 }], admins: ['hosta', 'v1admin'] }, { rules }));
    for (const d of [listed, unlisted]) mkdirSync(d);
    const serverXml = join(a.confDir, 'server.xml');
    writeFileSync(serverXml, readFileSync(serverXml, 'utf8').replace('<conf>conf</conf></directory>', `<conf>conf</conf><readabledirs>${listed}</readabledirs></directory>`));
    writeClientXml(a);
    for (const node of [b, a]) await startNode(node);
  }, 60_000);

  afterEach(() => (killNodes(a, b), box.cleanup()));

  async function done(name: string): Promise<void> {
    await waitFor(async () => {
      const rows = await sqliteRows<{ updatedinfo: bigint }>(a.db, `SELECT updatedinfo FROM runner WHERE originalname LIKE '%${name}'`);
      return rows.length === 1 && Number(rows[0]!.updatedinfo) === UpdatedInfo.DONE;
    }, { what: `${name} done`, timeoutMs: 30_000 });
  }

  it('send, asend and the TRANSFER task take any readable file; REST only the listed directory', async () => {
    const local = join(unlisted, 'local.txt');
    writeFileSync(local, 'sent by asend from anywhere\n');
    const r = await runCli('client', ['asend', '-to', 'hostb', '-file', local, '-rule', 'send'], a.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    await done('local.txt');
    expect(readFileSync(receivedFile(b, 'local.txt'), 'utf8')).toBe('sent by asend from anywhere\n');

    writeFileSync(join(unlisted, 'now.txt'), 'sent by send from anywhere\n');
    writeFileSync(join(unlisted, 'by-task.txt'), 'sent back by the TRANSFER task\n');
    const sent = await runCli('client', ['send', '-to', 'hostb', '-file', join(unlisted, 'now.txt'), '-rule', 'relay'], a.env);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(readFileSync(receivedFile(b, 'now.txt'), 'utf8')).toBe('sent by send from anywhere\n');
    // hostb's post-task submitted by-task.txt to hosta: its scheduler sends it.
    await waitFor(async () => {
      const rows = await sqliteRows<{ updatedinfo: bigint }>(b.db, "SELECT updatedinfo FROM runner WHERE originalname LIKE '%by-task.txt' AND requester = 'hostb'");
      return rows.length === 1 && Number(rows[0]!.updatedinfo) === UpdatedInfo.DONE;
    }, { what: 'the TRANSFER task\'s transfer done on hostb', timeoutMs: 30_000 });
    expect(readFileSync(receivedFile(a, 'by-task.txt'), 'utf8')).toBe('sent back by the TRANSFER task\n');

    writeFileSync(join(unlisted, 'rest-no.txt'), 'no');
    const refused = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: join(unlisted, 'rest-no.txt'), requested: 'hostb' });
    expect(refused.status).toBe(403);
    writeFileSync(join(listed, 'rest-yes.txt'), 'listed directory\n');
    const accepted = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: join(listed, 'rest-yes.txt'), requested: 'hostb' });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(201);
    await done('rest-yes.txt');
    expect(readFileSync(receivedFile(b, 'rest-yes.txt'), 'utf8')).toBe('listed directory\n');
  }, 120_000);

  it('REST v1\'s table editor: a row to send names a file of the host or a listed directory only', async () => {
    writeFileSync(join(unlisted, 'v1-no.txt'), 'not to be sent');
    const row = (id: number, file: string): Record<string, unknown> => ({ SPECIALID: id, IDRULE: 'send', FILENAME: file, REQUESTER: 'hosta', REQUESTED: 'hostb' });
    // v1's data-model refusals are 400 with a detail (rest-v1.md §6.3).
    const refused = await restV1(a, 'POST', '/transfers', row(9001, join(unlisted, 'v1-no.txt')));
    expect(refused.status, JSON.stringify(refused.json)).toBe(400);
    expect(String(refused.json)).toMatch(/9001.*not allowed|not allowed.*9001/i);
    expect(await sqliteRows(a.db, 'SELECT specialid FROM runner WHERE specialid = 9001')).toEqual([]);

    writeFileSync(join(listed, 'v1-yes.txt'), 'listed, through v1\n');
    const accepted = await restV1(a, 'POST', '/transfers', row(9002, join(listed, 'v1-yes.txt')));
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    await done('v1-yes.txt');
    expect(readFileSync(receivedFile(b, 'v1-yes.txt'), 'utf8')).toBe('listed, through v1\n');

    // An existing row pointed elsewhere by an update: refused, the row as it was.
    const q = '?REQUESTER=hosta&REQUESTED=hostb';
    const moved = await restV1(a, 'PUT', `/transfers/9002${q}`, { FILENAME: join(unlisted, 'v1-no.txt') });
    expect(moved.status, JSON.stringify(moved.json)).toBe(400);
    const stored = await sqliteRows<{ filename: string }>(a.db, 'SELECT filename FROM runner WHERE specialid = 9002');
    expect(stored.map((r) => r.filename)).toEqual([join(listed, 'v1-yes.txt')]);
    expect(existsSync(join(b.home, 'in', 'v1-no.txt'))).toBe(false);
  }, 120_000);
});
