// Crash and resume with real server processes: two `svc-r66server start` instances with their own
// homes and SQLite databases; a 200 MB transfer submitted to the database (as `asend` does), one
// side killed with SIGKILL mid-transfer, restarted, and the transfer must finish from its saved
// rank with the exact bytes.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { CRYPTO_KEY, PASSWORD_HEX, runCli, sandbox, spawnCli, sqliteRows, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { patternBytes } from '../transfer/harness.js';
import { freePort, sha256File } from '../transfer/servers.js';

const SIZE = 200 * 1024 * 1024;
const BLOCK = 65536;

interface Node {
  id: string;
  port: number;
  confRoot: string;
  confDir: string;
  home: string;
  db: string;
  env: NodeJS.ProcessEnv;
  proc?: Running;
}

function writeNode(box: Sandbox, id: string, port: number, partners: Array<{ id: string; port: number }>, limit: string): Node {
  const confRoot = join(box.dir, `conf-${id}`);
  const confDir = join(confRoot, id);
  const home = join(confDir, 'data');
  for (const d of ['in', 'out', 'work', 'arch', 'conf', 'admin']) mkdirSync(join(home, d), { recursive: true });
  const db = join(confDir, 'db.sqlite');
  writeFileSync(join(confDir, 'cryptokey.des'), CRYPTO_KEY);
  writeFileSync(join(confDir, 'server.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config>
  <identity><hostid>${id}</hostid><cryptokey>${join(confDir, 'cryptokey.des')}</cryptokey></identity>
  <server><serveradmin>admin</serveradmin><serverpasswd>${PASSWORD_HEX}</serverpasswd><usenossl>true</usenossl><usessl>false</usessl><httpadmin>${join(home, 'admin')}</httpadmin></server>
  <network><serverport>${port}</serverport><serverhttpport>0</serverhttpport><serverhttpsport>0</serverhttpsport></network>
  <directory><serverhome>${home}</serverhome><in>in</in><out>out</out><arch>arch</arch><work>work</work><conf>conf</conf></directory>
  <limit><timeoutcon>10000</timeoutcon><delaycommand>100</delaycommand><delayretry>1000</delayretry><blocksize>${BLOCK}</blocksize>${limit}</limit>
  <db><dbdriver>sqlite</dbdriver><dbserver>jdbc:sqlite:${db}</dbserver><dbuser>svc</dbuser><dbpasswd>pw</dbpasswd></db>
</config>
`);
  const entries = [{ id, port }, ...partners].map((p) => `<entry><hostid>${p.id}</hostid><address>127.0.0.1</address><port>${p.port}</port><key>${PASSWORD_HEX}</key></entry>`);
  writeFileSync(join(confDir, 'authent.xml'), `<authent>${entries.join('')}</authent>\n`);
  writeFileSync(join(confDir, 'big.rule.xml'), `<rule><idrule>big</idrule><hostids/><mode>${TransferMode.SENDMD5MODE}</mode>
  <rposttasks><tasks><task><type>MOVERENAME</type><path>#INPATH#/#ORIGINALFILENAME#</path><delay>0</delay></task></tasks></rposttasks></rule>\n`);
  return { id, port, confRoot, confDir, home, db, env: { ...box.env, INSTANCES_CONF: confRoot, SVC_LOG_LEVEL: 'info' } };
}

async function start(node: Node): Promise<void> {
  node.proc = spawnCli('server', ['start'], node.env);
  await waitFor(() => node.proc!.stdout().includes('is running') || node.proc!.child.exitCode !== null, { what: `${node.id} running`, timeoutMs: 20_000 });
  if (node.proc.child.exitCode !== null) throw new Error(`${node.id} did not start: ${node.proc.stderr()}`);
}

async function kill9(node: Node): Promise<string> {
  const proc = node.proc!;
  proc.child.kill('SIGKILL');
  await proc.exited;
  return proc.stdout();
}

async function writeBigFile(file: string): Promise<string> {
  const chunk = 8 * 1024 * 1024;
  const h = createHash('sha256');
  const out = createWriteStream(file);
  for (let i = 0; i < SIZE / chunk; i++) {
    const b = patternBytes(chunk, i + 1);
    h.update(b);
    if (!out.write(b)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return h.digest('hex');
}

/** Inserts the transfer as `asend` would (database.md §9.1): TOSUBMIT, picked up by hosta's scheduler. */
async function submit(node: Node, partner: string, file: string): Promise<bigint> {
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${node.db}`), { hostId: node.id });
  try {
    const specialId = await store.nextTransferId();
    const now = new Date();
    await store.runner.insert({
      specialId, requester: node.id, requested: partner, ownerReq: node.id, globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, step: -1, rank: 0,
      blockSize: BLOCK, mode: TransferMode.SENDMD5MODE, updatedInfo: UpdatedInfo.TOSUBMIT, stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown,
      retrieveMode: true, isMoved: false, start: now, stop: now, idRule: 'big', filename: file, originalName: file, fileInfo: 'noinfo',
      transferInfo: `{"ORIGINALSIZE":${SIZE}}`,
    });
    return specialId;
  } finally {
    await store.close();
  }
}

interface Row {
  rank: bigint | number;
  updatedinfo: bigint | number;
  infostatus: string;
}

async function rowOf(node: Node, id: bigint): Promise<Row | undefined> {
  const rows = await sqliteRows<Row>(node.db, `SELECT rank, updatedinfo, infostatus FROM runner WHERE specialid = ${id}`).catch(() => []);
  return rows[0];
}

describe('kill -9 mid-transfer and resume (separate processes)', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;

  beforeEach(async () => {
    box = sandbox();
    const [pa, pb] = [await freePort(), await freePort()];
    // The sender is shaped so the kill happens mid-transfer on any machine.
    a = writeNode(box, 'hosta', pa, [{ id: 'hostb', port: pb }], '<globallimit>100000000</globallimit>');
    b = writeNode(box, 'hostb', pb, [{ id: 'hosta', port: pa }], '');
    for (const n of [a, b]) {
      const r = await runCli('server', ['initdb', '-auth', join(n.confDir, 'authent.xml'), '-dir', n.confDir], n.env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
  }, 60_000);

  afterEach(async () => {
    for (const n of [a, b]) if (n?.proc && n.proc.child.exitCode === null) n.proc.child.kill('SIGKILL');
    box.cleanup();
  });

  for (const victim of ['receiver', 'requester'] as const) {
    it(`the ${victim} is killed; after its restart the transfer resumes from its rank and completes`, async () => {
      const expected = await writeBigFile(join(a.home, 'out', 'big.bin'));
      await start(b);
      await start(a);
      const id = await submit(a, 'hostb', 'big.bin');
      const minRank = SIZE / BLOCK / 4;
      await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > minRank, { what: 'a quarter of the file on the receiver', timeoutMs: 30_000 });
      const node = victim === 'receiver' ? b : a;
      await kill9(node);
      const rankAtKill = Number((await rowOf(b, id))!.rank);
      expect(rankAtKill).toBeGreaterThan(0);
      await start(node);
      const done = await waitFor(async () => {
        const ra = await rowOf(a, id);
        const rb = await rowOf(b, id);
        return Number(ra?.updatedinfo) === UpdatedInfo.DONE && Number(rb?.updatedinfo) === UpdatedInfo.DONE ? { ra, rb } : undefined;
      }, { what: 'both rows done', timeoutMs: 60_000 });
      expect(done.ra!.infostatus).toBe('O');
      expect(await sha256File(join(b.home, 'in', 'big.bin'))).toBe(expected);
      expect(readdirSync(join(b.home, 'work'))).toEqual([]);
      // Resumed, not restarted: one of the two logs says from which rank.
      const logs = a.proc!.stdout() + b.proc!.stdout();
      const resumed = logs.split('\n').filter((l) => l.includes('"msg":"transfer resumed"')).map((l) => JSON.parse(l) as { rank: number });
      expect(resumed.length).toBeGreaterThan(0);
      expect(resumed[0]!.rank).toBeGreaterThan(0);
    }, 120_000);
  }
});
