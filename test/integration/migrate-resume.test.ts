// issue 34 item 6: a Java R66 host's H2 database (the original's schema, built with Debian's
// libh2-java: H2 2.1.x; Waarp 3.6.2's H2 1.4.200 is not on this machine) with history, a transfer
// in flight and its partial file named as the original names it (`/work/<id>_<rand>_name.r66`,
// relative to serverhome) is migrated by `svc-r66server migrate`; the host then starts on svc and
// the transfer resumes against a live partner (a second svc host stands in for the Java one) from
// its rank, writing on into the Java partial file (same inode), and completes with the exact bytes.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { buildJavaH2, h2Available, h2DbSection, hostInsert, ruleInsert, runnerInsert } from '../admin/migration-h2.js';
import { PASSWORD_HEX, runCli, sandbox, sqliteRows, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { patternBytes } from '../helpers/hosts.js';
import { BLOCK, killNodes, receivedFile, sha256File, startNode, writeNodePair, type Node } from '../transfer/servers.js';

const PULL_RULE = { 'pull.rule.xml': `<rule><idrule>pull</idrule><hostids/><mode>${TransferMode.RECVMODE}</mode></rule>\n` };
const BLOCKS = 64;
const RANK = 20;
const ID = 1693900000500n;

describe.skipIf(!h2Available())('a Java host migrated with svc-r66server migrate resumes its transfer', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: PULL_RULE }, { rules: PULL_RULE }));
  }, 60_000);

  afterEach(() => {
    killNodes(a, b);
    box.cleanup();
  });

  it('history copied, the in-flight pull resumes from its rank into the Java partial file', async () => {
    // hostb (the partner) serves the file; its own row of the interrupted transfer, as a Java host keeps it.
    const source = patternBytes(BLOCKS * BLOCK, 7);
    writeFileSync(join(b.home, 'out', 'big.bin'), source);
    const bStore = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${b.db}`), { hostId: 'hostb' });
    const then = new Date(Date.now() - 60_000);
    await bStore.runner.insert({
      specialId: ID, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb', globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK,
      step: 0, rank: RANK, blockSize: BLOCK, mode: TransferMode.RECVMODE, updatedInfo: UpdatedInfo.INTERRUPTED, stepStatus: ErrorCode.Running,
      infoStatus: ErrorCode.Running, retrieveMode: true, isMoved: false, start: then, stop: then, idRule: 'pull',
      filename: join(b.home, 'out', 'big.bin'), originalName: 'big.bin', fileInfo: 'noinfo', transferInfo: `{"ORIGINALSIZE":${source.length}}`,
    });
    await bStore.close();

    // hosta as the Java host left it: H2 database, the partial file of the first RANK blocks in work/.
    const javaName = `/work/${ID}_4821_big.bin.r66`;
    const partial = join(a.home, javaName);
    writeFileSync(partial, source.subarray(0, RANK * BLOCK));
    const partialInode = statSync(partial).ino;
    const h2Base = join(a.confDir, 'h2', 'waarp');
    buildJavaH2(h2Base, 'waarp', 'h2pw', [
      hostInsert('hosta', a.port, PASSWORD_HEX, true),
      hostInsert('hostb', b.port, PASSWORD_HEX),
      ruleInsert('pull', TransferMode.RECVMODE),
      "INSERT INTO MULTIPLEMONITOR VALUES (0, 0, 0, 'hosta');",
      "INSERT INTO HOSTCONFIG VALUES ('', '', '', '<root><version>3.1.0</version></root>', 0, 'hosta');",
      ...[1, 2, 3].map((i) => runnerInsert({ id: ID - BigInt(i), owner: 'hosta', requester: 'hosta', requested: 'hostb', rule: 'pull', mode: 2, retrieve: false, globalStep: 4, globalLastStep: 4, rank: 1, blockSize: BLOCK, updatedInfo: 6, status: 'O', filename: `/in/old${i}.txt`, originalName: `old${i}.txt` })),
      runnerInsert({ id: ID, owner: 'hosta', requester: 'hosta', requested: 'hostb', rule: 'pull', mode: 2, retrieve: false, globalStep: 2, globalLastStep: 2, rank: RANK, blockSize: BLOCK, updatedInfo: 5, status: 'z', filename: javaName, originalName: 'big.bin', transferInfo: `{"ORIGINALSIZE":${source.length}}` }),
    ]);
    const serverXml = join(a.confDir, 'server.xml');
    writeFileSync(serverXml, readFileSync(serverXml, 'utf8').replace(/<db>[\s\S]*?<\/db>/, h2DbSection(h2Base, 'waarp', 'h2pw')));

    const migrated = await runCli('server', ['migrate', '-from', serverXml], a.env);
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/RUNNER\s+4\s+4\s+0/);
    expect(migrated.stdout).toMatch(/1 transfer\(s\) of this host were running/);
    a.db = join(a.confDir, 'db', 'svc-r66.sqlite');

    await startNode(b);
    await startNode(a);
    const done = await waitFor(async () => {
      const rows = await sqliteRows<{ updatedinfo: bigint; infostatus: string; rank: bigint; filename: string }>(a.db, `SELECT updatedinfo, infostatus, rank, filename FROM runner WHERE specialid = ${ID} AND ownerreq = 'hosta'`).catch(() => []);
      const r = rows[0];
      return r && (Number(r.updatedinfo) === UpdatedInfo.DONE || Number(r.updatedinfo) === UpdatedInfo.INERROR) ? r : undefined;
    }, { what: 'the resumed transfer to end on hosta', timeoutMs: 60_000 });
    expect(done.infostatus.trim(), a.proc?.stdout()).toBe('O');
    expect(Number(done.rank)).toBe(BLOCKS);
    const final = receivedFile(a, 'big.bin');
    expect(await sha256File(final)).toBe(await sha256File(join(b.home, 'out', 'big.bin')));
    // The Java partial file was written on and moved into place, not left behind and redone.
    expect(existsSync(partial)).toBe(false);
    expect(statSync(final).ino).toBe(partialInode);
    expect(done.filename).toBe(final);
    // History and the next id: above this host's own ids.
    const ids = await sqliteRows<{ n: bigint }>(a.db, "SELECT COUNT(*) AS n FROM runner WHERE ownerreq = 'hosta'");
    expect(Number(ids[0]!.n)).toBe(4);
    const seq = await sqliteRows<{ seq: string }>(a.db, "SELECT CAST(seq AS TEXT) AS seq FROM sequences WHERE name = 'RUNSEQ'");
    expect(BigInt(seq[0]!.seq)).toBeGreaterThan(ID);
  }, 180_000);
});
