// issue 34 item 4: a local submission (asend, as the original) sends any file the process can read;
// REST keeps the host's directories, plus those server.xml lists in directory/readabledirs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { runCli, sandbox, sqliteRows, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, receivedFile, rest, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { writeClientXml } from './migrate-helpers.js';

describe('files outside the host directories', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;
  let listed: string;
  let unlisted: string;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: SEND_RULE, rest: true }, { rules: SEND_RULE }));
    listed = join(box.dir, 'exports');
    unlisted = join(box.dir, 'elsewhere');
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

  it('asend takes any readable file; REST only the listed directory', async () => {
    const local = join(unlisted, 'local.txt');
    writeFileSync(local, 'sent by asend from anywhere\n');
    const r = await runCli('client', ['asend', '-to', 'hostb', '-file', local, '-rule', 'send'], a.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    await done('local.txt');
    expect(readFileSync(receivedFile(b, 'local.txt'), 'utf8')).toBe('sent by asend from anywhere\n');

    writeFileSync(join(unlisted, 'rest-no.txt'), 'no');
    const refused = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: join(unlisted, 'rest-no.txt'), requested: 'hostb' });
    expect(refused.status).toBe(403);
    writeFileSync(join(listed, 'rest-yes.txt'), 'listed directory\n');
    const accepted = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: join(listed, 'rest-yes.txt'), requested: 'hostb' });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(201);
    await done('rest-yes.txt');
    expect(readFileSync(receivedFile(b, 'rest-yes.txt'), 'utf8')).toBe('listed directory\n');
  }, 120_000);
});
