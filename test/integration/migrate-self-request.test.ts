// issue 34 item 3: a host transferring to itself, as Java 3.6.2 accepts (`DirectTransfer -to <own
// id>`: SUCCESS, the file in in/, one row, DbTaskRunner.isSelfRequest). Scripts of a migrated host
// that rely on it keep working: send, pull and asend to the host's own id.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { runCli, sandbox, sqliteRows, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, killNodes, receivedFile, startNode, writeNode, type Node } from '../transfer/servers.js';
import { writeClientXml } from './migrate-helpers.js';

const RULES = {
  'send.rule.xml': '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n',
  'pull.rule.xml': '<rule><idrule>pull</idrule><hostids/><mode>2</mode></rule>\n',
  'own.rule.xml': '<rule><idrule>own</idrule><hostids/><mode>1</mode><recvpath>in/own</recvpath></rule>\n',
};

async function rowsNamed(node: Node, name: string): Promise<Array<{ updatedinfo: bigint; infostatus: string; requester: string; requested: string }>> {
  return sqliteRows(node.db, `SELECT updatedinfo, infostatus, requester, requested FROM runner WHERE originalname LIKE '%${name}'`);
}

describe('a transfer from a host to itself', () => {
  let box: Sandbox;
  let a: Node;

  beforeEach(async () => {
    box = sandbox();
    a = await writeNode(box, 'hosta', await freePort(), [], { rules: RULES });
    writeClientXml(a);
    await startNode(a);
  }, 60_000);

  afterEach(() => {
    killNodes(a);
    box.cleanup();
  });

  it('send, pull and asend to the own id succeed with one row each, the file in in/', async () => {
    const cases = [['send', 'send', 'sent-self.txt'], ['send', 'pull', 'pulled-self.txt'], ['asend', 'send', 'queued-self.txt']] as const;
    for (const [command, rule, name] of cases) {
      const content = `${command} ${rule} ${name}\n`.repeat(1000);
      writeFileSync(join(a.home, 'out', name), content);
      const r = await runCli('client', [command, '-to', 'hosta', '-file', name, '-rule', rule], a.env);
      expect(r.code, `${command} ${rule}: ${r.stdout}${r.stderr}`).toBe(0);
      const rows = await waitFor(async () => {
        const found = await rowsNamed(a, name);
        return found.length > 0 && found.every((x) => Number(x.updatedinfo) === UpdatedInfo.DONE) ? found : undefined;
      }, { what: `${name} done`, timeoutMs: 30_000 });
      expect(rows, name).toHaveLength(1);
      expect([rows[0]!.requester, rows[0]!.requested, rows[0]!.infostatus.trim()]).toEqual(['hosta', 'hosta', 'O']);
      expect(readFileSync(receivedFile(a, name), 'utf8')).toBe(content);
    }
    // A rule with its own receive directory: the file lands there.
    writeFileSync(join(a.home, 'out', 'own-dir.txt'), 'to the rule directory\n');
    const own = await runCli('client', ['send', '-to', 'hosta', '-file', 'own-dir.txt', '-rule', 'own'], a.env);
    expect(own.code, own.stdout + own.stderr).toBe(0);
    const inOwn = readdirSync(join(a.home, 'in', 'own')).filter((f) => f.endsWith('own-dir.txt'));
    expect(inOwn).toHaveLength(1);
    expect(readFileSync(join(a.home, 'in', 'own', inOwn[0]!), 'utf8')).toBe('to the rule directory\n');
    expect(await rowsNamed(a, 'own-dir.txt')).toHaveLength(1);
  }, 120_000);
});
