// issue 34 item 6: a Java R66 host's H2 database (the original's schema, built with Debian's
// libh2-java: H2 2.1.x; test/admin/migration.test.ts covers the 1.4 file format) with history, a transfer
// in flight and its partial file named as the original names it (`/work/<id>_<rand>_name.r66`,
// relative to serverhome) is migrated by `svc-r66server migrate`; the host then starts on svc and
// the transfer resumes against a live partner (a second svc host stands in for the Java one) from
// its rank, writing on into the Java partial file (same inode): the file holds the partial's bytes up
// to the restart point and the source's after it. A send interrupted under Java resumes the same way.
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
import { BLOCK, killNodes, receivedFile, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';

const RULES = { ...SEND_RULE, 'pull.rule.xml': `<rule><idrule>pull</idrule><hostids/><mode>${TransferMode.RECVMODE}</mode></rule>\n` };
const BLOCKS = 64;
const RANK = 20;
const ID = 1693900000500n;
/**
 * The receiver's partial holds marker bytes where the source has others, to show where the data
 * resumed: a receiver restarts GAP blocks before its saved rank (gaprestart, as the original), and
 * no whole-file digest is compared (the file is the markers then the source, on purpose).
 */
const GAP = 5;
const RESUMED = RANK - GAP;
const MARKED = `<gaprestart>${GAP}</gaprestart><globaldigest>false</globaldigest>`;

/** hostb's row of the interrupted transfer (the partner stands in for the Java one, keeping its own row). */
async function partnerRow(b: Node, row: { mode: number; rule: string; retrieveMode: boolean; filename: string; size: number }): Promise<void> {
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${b.db}`), { hostId: 'hostb' });
  const then = new Date(Date.now() - 60_000);
  await store.runner.insert({
    specialId: ID, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb', globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK,
    step: 0, rank: RANK, blockSize: BLOCK, mode: row.mode, updatedInfo: UpdatedInfo.INTERRUPTED, stepStatus: ErrorCode.Running,
    infoStatus: ErrorCode.Running, retrieveMode: row.retrieveMode, isMoved: false, start: then, stop: then, idRule: row.rule,
    filename: row.filename, originalName: 'big.bin', fileInfo: 'noinfo', transferInfo: `{"ORIGINALSIZE":${row.size}}`,
  });
  await store.close();
}

/** hosta as the Java host left it (H2 database with `rows`), migrated; returns the migrate output. */
async function migrateJavaHost(a: Node, b: Node, rule: { id: string; mode: number }, rows: string[]): Promise<string> {
  const h2Base = join(a.confDir, 'h2', 'waarp');
  buildJavaH2(h2Base, 'waarp', 'h2pw', [
    hostInsert('hosta', a.port, PASSWORD_HEX, true),
    hostInsert('hostb', b.port, PASSWORD_HEX),
    ruleInsert(rule.id, rule.mode),
    "INSERT INTO MULTIPLEMONITOR VALUES (0, 0, 0, 'hosta');",
    "INSERT INTO HOSTCONFIG VALUES ('', '', '', '<root><version>3.1.0</version></root>', 0, 'hosta');",
    ...rows,
  ]);
  const serverXml = join(a.confDir, 'server.xml');
  writeFileSync(serverXml, readFileSync(serverXml, 'utf8').replace(/<db>[\s\S]*?<\/db>/, h2DbSection(h2Base, 'waarp', 'h2pw')));
  const migrated = await runCli('server', ['migrate', '-from', serverXml], a.env);
  expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
  a.db = join(a.confDir, 'db', 'svc-r66.sqlite');
  return migrated.stdout;
}

/** Starts both hosts and waits for hosta's row of the transfer to end. */
async function resumed(a: Node, b: Node): Promise<{ infostatus: string; rank: bigint; filename: string }> {
  await startNode(b);
  await startNode(a);
  return waitFor(async () => {
    const rows = await sqliteRows<{ updatedinfo: bigint; infostatus: string; rank: bigint; filename: string }>(a.db, `SELECT updatedinfo, infostatus, rank, filename FROM runner WHERE specialid = ${ID} AND ownerreq = 'hosta'`).catch(() => []);
    const r = rows[0];
    return r && (Number(r.updatedinfo) === UpdatedInfo.DONE || Number(r.updatedinfo) === UpdatedInfo.INERROR) ? r : undefined;
  }, { what: 'the resumed transfer to end on hosta', timeoutMs: 60_000 });
}

/** `got` is the marker up to the restart point (saved rank less gaprestart), then the source. */
function expectResumedAt(got: Buffer, marker: Buffer, source: Buffer): void {
  expect(got.length).toBe(source.length);
  expect(got.subarray(0, RESUMED * BLOCK).equals(marker.subarray(0, RESUMED * BLOCK))).toBe(true);
  expect(got.subarray(RESUMED * BLOCK).equals(source.subarray(RESUMED * BLOCK))).toBe(true);
}

// In CI (SVC_TEST_REQUIRE_DBS=1) Java and libh2-java must be there (.ci/run installs them): fail, not skip.
describe.skipIf(!h2Available() && process.env.SVC_TEST_REQUIRE_DBS !== '1')('a Java host migrated with svc-r66server migrate resumes its transfer', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: RULES, limit: MARKED }, { rules: RULES, limit: MARKED }));
  }, 60_000);

  afterEach(() => {
    killNodes(a, b);
    box.cleanup();
  });

  it('history copied, the in-flight pull resumes from its rank into the Java partial file', async () => {
    // hostb (the partner) serves the file.
    const source = patternBytes(BLOCKS * BLOCK, 7);
    writeFileSync(join(b.home, 'out', 'big.bin'), source);
    await partnerRow(b, { mode: TransferMode.RECVMODE, rule: 'pull', retrieveMode: true, filename: join(b.home, 'out', 'big.bin'), size: source.length });

    // hosta's partial file of the first RANK blocks in work/, named as the original names it.
    const javaName = `/work/${ID}_4821_big.bin.r66`;
    const partial = join(a.home, javaName);
    const marker = Buffer.alloc(RANK * BLOCK, 0xcd);
    writeFileSync(partial, marker);
    const partialInode = statSync(partial).ino;
    const out = await migrateJavaHost(a, b, { id: 'pull', mode: TransferMode.RECVMODE }, [
      ...[1, 2, 3].map((i) => runnerInsert({ id: ID - BigInt(i), owner: 'hosta', requester: 'hosta', requested: 'hostb', rule: 'pull', mode: 2, retrieve: false, globalStep: 4, globalLastStep: 4, rank: 1, blockSize: BLOCK, updatedInfo: 6, status: 'O', filename: `/in/old${i}.txt`, originalName: `old${i}.txt` })),
      runnerInsert({ id: ID, owner: 'hosta', requester: 'hosta', requested: 'hostb', rule: 'pull', mode: 2, retrieve: false, globalStep: 2, globalLastStep: 2, rank: RANK, blockSize: BLOCK, updatedInfo: 5, status: 'z', filename: javaName, originalName: 'big.bin', transferInfo: `{"ORIGINALSIZE":${source.length}}` }),
    ]);
    expect(out).toMatch(/RUNNER\s+4\s+4\s+0/);
    expect(out).toMatch(/1 transfer\(s\) of this host were running/);

    const done = await resumed(a, b);
    expect(done.infostatus.trim(), a.proc?.stdout()).toBe('O');
    expect(Number(done.rank)).toBe(BLOCKS);
    const final = receivedFile(a, 'big.bin');
    expectResumedAt(readFileSync(final), marker, source);
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

  it('an in-flight send of /out/big.bin (serverhome-relative) is sent on from the saved rank', async () => {
    const source = patternBytes(BLOCKS * BLOCK, 11);
    writeFileSync(join(a.home, 'out', 'big.bin'), source);
    // hostb received RANK blocks before the switch (markers, which a send from zero would overwrite).
    const marker = Buffer.alloc(RANK * BLOCK, 0xab);
    const bPartial = join(b.home, 'work', `${ID}_77_big.bin.r66`);
    writeFileSync(bPartial, marker);
    await partnerRow(b, { mode: TransferMode.SENDMODE, rule: 'send', retrieveMode: false, filename: bPartial, size: source.length });
    await migrateJavaHost(a, b, { id: 'send', mode: TransferMode.SENDMODE }, [
      runnerInsert({ id: ID, owner: 'hosta', requester: 'hosta', requested: 'hostb', rule: 'send', mode: TransferMode.SENDMODE, retrieve: true, globalStep: 2, globalLastStep: 2, rank: RANK, blockSize: BLOCK, updatedInfo: 5, status: 'z', filename: '/out/big.bin', originalName: 'big.bin', transferInfo: `{"ORIGINALSIZE":${source.length}}` }),
    ]);

    const done = await resumed(a, b);
    expect(done.infostatus.trim(), a.proc?.stdout()).toBe('O');
    expect(Number(done.rank)).toBe(BLOCKS);
    expectResumedAt(readFileSync(receivedFile(b, 'big.bin')), marker, source);
  }, 180_000);
});
