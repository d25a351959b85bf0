// issue 20 item 2: the same order through the CLI (svc-r66client asend), REST v1 (/control) and
// REST v2 (/v2/transfers) gives the same RUNNER row, and stop, cancel and restart of a row not
// running give the same columns through v1 and v2 (and the CLI's asend -id for the restart). The
// CLI's send (a transfer run now) writes the same row but for the state columns of its attempt,
// and the TRANSFER task (tasks.md §8) the same row as a submission of the same order.
// Item 3: a v2 order naming a file outside the served directories is refused 403, nothing written.
// Issue 33 item 3: a partner's stop, cancel and restart over R66 (through the real listener) is the
// order service's call a REST order makes, and leaves the row the REST order leaves.
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TransferKey, TransferRecord } from '../../src/model/transfer.js';
import { parseJdbcUrl } from '../../src/store/index.js';
import { PASSWORD_HEX, runCli, sandbox, writeInstance, type Instance, type Sandbox } from '../cli/cli-helpers.js';
import { jsonResult } from '../cli/client-harness.js';
import { ADMIN, host, startHarness, type Harness } from '../http/harness.js';
import { v1 as v1Call } from '../http/v1-client.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { readInfoMap } from '../../src/tasks/transfer-info.js';
import { closeHosts, grantSystemRole, introduce, makeHost, type TestHost } from '../helpers/hosts.js';
import { TransferOrders } from '../../src/operations/index.js';
import { encodeValidCommand, newJsonCommand, PacketType, type Packet } from '../../src/protocol/index.js';
import { addRulePair, at, task, transferBetween } from '../helpers/task-transfers.js';
import { setStoredRow } from '../helpers/stored-row.js';

const entry = (hostId: string, port: number): string => `<entry><hostid>${hostId}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key></entry>`;

let box: Sandbox;
let a: Instance;
let h: Harness;
/** The v1 listener (signed requests, as the Java client sends them) over the same database. */
let h1: Harness;
const content = 'same content\n';

beforeAll(async () => {
  box = sandbox();
  a = writeInstance(join(box.dir, 'conf', 'hosta'), { hostId: 'hosta' });
  writeFileSync(join(a.confDir, 'send.rule.xml'), '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n');
  writeFileSync(join(a.confDir, 'authent.xml'), `<authent>${entry('hosta', 6667)}${entry('hostb', 6666)}</authent>\n`);
  const env = { ...box.env, CONFDIR: a.confDir };
  expect((await runCli('client', ['initdb', '-auth', join(a.confDir, 'authent.xml'), '-dir', a.confDir], env)).code).toBe(0);
  // REST over the same database, as the server sharing it with the client would serve it.
  const settings = parseJdbcUrl('sqlite', `jdbc:sqlite:${a.sqliteFile}`);
  // Each harness writes the partners with its own crypto key: v2's last, v1's own user after.
  h1 = await startHarness({ settings, rest: { signature: true } });
  h = await startHarness({ settings });
  await h1.store.hosts.upsert(host(h1.config.identity.cryptoKey, 'v1admin', 'adminpw1', { port: -1, isClient: true, address: '0.0.0.0', adminRole: true }));
  for (const home of [a.serverHome, h.home, h1.home]) writeFileSync(join(home, 'out', 'same.txt'), content);
}, 60_000);

afterAll(async () => {
  await h1?.close();
  await h?.close();
  box?.cleanup();
});

async function rest(method: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  if (!path.startsWith('/v2/')) return v1Call(h1, method, path, { user: 'v1admin', password: 'adminpw1', body: JSON.stringify(body) });
  const res = await fetch(h.base + path, { method, headers: { authorization: ADMIN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

const cls = (name: string): string => `org.waarp.openr66.protocol.localhandler.packet.json.${name}`;

/** The row without what differs by nature: id, follow id (its own, never the id: Java client), times. */
function comparable(r: TransferRecord | undefined): Record<string, unknown> {
  expect(r).toBeDefined();
  const { specialId, start: _s, stop: _t, ...rest } = r!;
  const id = String(specialId);
  expect(rest.fileInfo).not.toContain(id);
  const fileInfo = rest.fileInfo.replace(/"follow":-?\d+/g, '"follow":FOLLOW');
  return { ...rest, fileInfo, transferInfo: rest.transferInfo.replaceAll(id, 'ID') };
}

const keyOf = (id: string): TransferKey => ({ specialId: BigInt(id), requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' });

describe('one order, three entry points', () => {
  const ids: Record<'cli' | 'v1' | 'v2', string> = { cli: '', v1: '', v2: '' };

  it('submit: the same row from asend, v1 /control and v2 /transfers', async () => {
    const cli = await runCli('client', ['asend', '-to', 'hostb', '-rule', 'send', '-file', 'same.txt', '-info', 'batch', '-block', '65536'], { ...box.env, CONFDIR: a.confDir });
    expect(cli.code).toBe(0);
    ids.cli = String(jsonResult(cli.stdout).specialid);
    const v1 = await rest('POST', '/control', {
      '@class': cls('TransferRequestJsonPacket'), requestUserPacket: 7, rulename: 'send', mode: 1, filename: 'same.txt', requested: 'hostb',
      blocksize: 65536, fileInformation: 'batch', start: null, delay: 0, additionalDelay: false,
    });
    expect(v1.status).toBe(200);
    ids.v1 = /"specialId":(-?\d+)/.exec(v1.text)![1]!;
    const v2 = await rest('POST', '/v2/transfers', { ruleName: 'send', filename: 'same.txt', requested: 'hostb', fileInfo: 'batch', blockSize: 65536 });
    expect(v2.status).toBe(201);
    ids.v2 = /"id":(-?\d+)/.exec(v2.text)![1]!;
    const rows = await Promise.all([ids.cli, ids.v1, ids.v2].map((id) => h.store.runner.get(keyOf(id))));
    const [cliRow, v1Row, v2Row] = rows.map(comparable);
    expect(cliRow).toMatchObject({ updatedInfo: 3, fileInfo: 'batch {"follow":FOLLOW}', transferInfo: `{"ORIGINALSIZE":${content.length}}`, filename: 'same.txt', retrieveMode: true });
    expect(v1Row).toEqual(cliRow);
    expect(v2Row).toEqual(cliRow);
  });

  it('send (run now) writes the row asend writes, but for the state columns its attempt wrote', async () => {
    // hostb does not listen here: the attempt fails to connect (or to authenticate, should a
    // process of another test listen on its port); the row stays (no -nolog).
    const cli = await runCli('client', ['send', '-to', 'hostb', '-rule', 'send', '-file', 'same.txt', '-info', 'batch', '-block', '65536'], { ...box.env, CONFDIR: a.confDir });
    expect(cli.code, cli.stderr).toBeGreaterThan(2);
    const sent = await h.store.runner.get(keyOf(String(jsonResult(cli.stdout).specialid)));
    const submitted = await h.store.runner.get(keyOf(ids.cli));
    const dataOf = (r: TransferRecord | undefined): Record<string, unknown> => {
      const { globalStep: _g, globalLastStep: _l, step: _s, rank: _r, stepStatus: _ss, infoStatus: _is, updatedInfo: _u, ...data } = comparable(r);
      return data;
    };
    expect(sent?.globalStep).toBe(5);
    expect(dataOf(sent)).toEqual(dataOf(submitted));
  });

  it('stop, cancel and restart of a row not running: the same columns through v1 and v2', async () => {
    const v1Order = (id: string, packet: string, extra: Record<string, unknown>) =>
      rest('PUT', '/control', { '@class': cls(packet), requester: 'hosta', requested: 'hostb', specialid: id, ...extra });
    // Both rows as the scheduler leaves a transfer that failed in its data phase.
    for (const id of [ids.v1, ids.v2]) await setStoredRow(h.store.runner, keyOf(id), { globalStep: 5, globalLastStep: 2, rank: 7, updatedInfo: 4 });
    const same = async (): Promise<Record<string, unknown>> => {
      const [r1, r2] = (await Promise.all([ids.v1, ids.v2].map((id) => h.store.runner.get(keyOf(id))))).map(comparable);
      expect(r2).toEqual(r1);
      return r1!;
    };
    await v1Order(ids.v1, 'StopOrCancelJsonPacket', { requestUserPacket: 9 });
    await rest('PUT', `/v2/transfers/${ids.v2}_hostb/stop`, {});
    expect(await same()).toMatchObject({ updatedInfo: 4, globalStep: 5, infoStatus: { char: 'H' }, stepStatus: { char: 'H' }, rank: 7 });
    await v1Order(ids.v1, 'RestartTransferJsonPacket', {});
    await rest('PUT', `/v2/transfers/${ids.v2}_hostb/restart`, {});
    expect(await same()).toMatchObject({ updatedInfo: 3, globalStep: 2, globalLastStep: 2, infoStatus: { char: 'B' }, rank: 7 });
    await v1Order(ids.v1, 'StopOrCancelJsonPacket', { requestUserPacket: 10 });
    await rest('PUT', `/v2/transfers/${ids.v2}_hostb/cancel`, {});
    expect(await same()).toMatchObject({ updatedInfo: 4, globalStep: 5, infoStatus: { char: 'K' }, rank: 0 });
  });

  it('restart through the CLI (asend -id) gives the row v1 and v2 give', async () => {
    for (const id of [ids.cli, ids.v1]) await setStoredRow(h.store.runner, keyOf(id), { globalStep: 5, globalLastStep: 3, rank: 4, updatedInfo: 4 });
    expect((await runCli('client', ['asend', '-to', 'hostb', '-id', ids.cli], { ...box.env, CONFDIR: a.confDir })).code).toBe(0);
    await rest('PUT', '/control', { '@class': cls('RestartTransferJsonPacket'), requester: 'hosta', requested: 'hostb', specialid: ids.v1 });
    const [c, v] = (await Promise.all([ids.cli, ids.v1].map((id) => h.store.runner.get(keyOf(id))))).map(comparable);
    expect(c).toMatchObject({ updatedInfo: 3, globalStep: 3, infoStatus: { char: 'X' }, rank: 4 });
    expect({ ...c, infoStatus: c!.infoStatus }).toMatchObject({ globalStep: v!.globalStep, globalLastStep: v!.globalLastStep, stepStatus: v!.stepStatus, infoStatus: v!.infoStatus, updatedInfo: v!.updatedInfo, rank: v!.rank });
  });

  it('refuses a file outside the served directories (403, FileNotAllowed), writing nothing', async () => {
    const before = await h.store.runner.count({});
    const shadow = await rest('POST', '/v2/transfers', { ruleName: 'send', filename: '/etc/shadow', requested: 'hostb' });
    expect(shadow.status).toBe(403);
    expect(shadow.text).toContain('FileNotAllowed');
    const up = await rest('POST', '/v2/transfers', { ruleName: 'send', filename: '../../../etc/passwd', requested: 'hostb' });
    expect(up.status).toBe(403);
    const v1 = await rest('POST', '/control', {
      '@class': cls('TransferRequestJsonPacket'), requestUserPacket: 7, rulename: 'send', mode: 1, filename: '/etc/shadow', requested: 'hostb',
      blocksize: 65536, fileInformation: '', start: null, delay: 0, additionalDelay: false,
    });
    expect(v1.text).toContain('"code":403');
    // asend is a local submission: any file the process can read, as the original (issue 34); a
    // name climbing out of the rule's directory is still refused.
    const cli = await runCli('client', ['asend', '-to', 'hostb', '-rule', 'send', '-file', '../../../etc/passwd'], { ...box.env, CONFDIR: a.confDir });
    expect(cli.code).toBe(32);
    expect(await h.store.runner.count({})).toBe(before);
  });
});

describe('the TRANSFER task: the row a submission of the same order gives', () => {
  let a: TestHost | undefined;
  let b: TestHost | undefined;
  let c: TestHost | undefined;
  afterAll(() => closeHosts(a, b, c));

  it('a post-task TRANSFER on hostb and hostb\'s own submit of that order write the same row', async () => {
    a = await makeHost('hosta');
    b = await makeHost('hostb');
    c = await makeHost('hostc');
    await introduce(a, b, c);
    const journal = at(a, 'journal.txt');
    await writeFile(join(a.dirs.out, 'f.txt'), 'travels twice');
    await addRulePair([b, c], 'fwd', journal, () => ({}));
    await addRulePair([a, b], 'hop', journal, (x) => (x === b ? { rPostTasks: [task('TRANSFER', '-to hostc -file #TRUEFULLPATH# -rule fwd -block 32768 -info relayed')] } : {}));
    const { out } = await transferBetween(a, b, { rule: 'hop', file: 'f.txt', fileInfo: 'first leg' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    // hostb runs no scheduler: the task's row waits, TOSUBMIT.
    const [fromTask, ...more] = await b.store.runner.list({ requester: 'hostb', requested: 'hostc' });
    expect(more).toEqual([]);
    const follow = readInfoMap(out.record.fileInfo).follow;
    const submitted = await b.engine.orders.submit({ partner: 'hostc', rule: 'fwd', file: fromTask!.filename, blockSize: 32768, fileInfo: `relayed {"follow":${String(follow)}}`, noFollow: true });
    expect(comparable(fromTask)).toMatchObject({ updatedInfo: 3, globalStep: 0, blockSize: 32768, transferInfo: '{"ORIGINALSIZE":13}' });
    expect(comparable(fromTask)).toEqual(comparable(submitted));
  });
});

describe("a partner's stop, cancel and restart over R66: the REST order's service call and row", () => {
  let a: TestHost | undefined;
  let b: TestHost | undefined;
  let api: Harness | undefined;
  afterAll(async () => {
    vi.restoreAllMocks();
    await api?.close();
    await closeHosts(a, b);
  });

  it('each order from hostb through hosta\'s listener calls TransferOrders as REST v2 does, with the same row after it', async () => {
    a = await makeHost('hosta');
    // REST v2 over hosta's database with hosta's engine plugged in, as the server composes it.
    api = await startHarness({ settings: parseJdbcUrl('sqlite', `jdbc:sqlite:${join(a.home, 'db.sqlite')}`) });
    api.services.transfers = a.engine;
    b = await makeHost('hostb');
    await introduce(a, b);
    await grantSystemRole(a, b);
    await addRulePair([a, b], 'send', at(a, 'journal.txt'), () => ({}));
    await writeFile(join(a.dirs.out, 'o.txt'), 'ordered');
    const [overR66, overRest] = await Promise.all([1, 2].map(() => a!.engine.orders.submit({ partner: 'hostb', rule: 'send', file: 'o.txt', fileInfo: 'same' })));
    const refs = [overR66!, overRest!].map((r) => ({ specialId: r.specialId, requester: 'hosta', requested: 'hostb' }));
    // Both as the scheduler leaves a transfer that failed in its data phase.
    for (const ref of refs) await setStoredRow(a.store.runner, { ...ref, ownerReq: 'hosta' }, { globalStep: 5, globalLastStep: 2, rank: 7, updatedInfo: 4 });
    const calls = { stop: vi.spyOn(TransferOrders.prototype, 'stop'), cancel: vi.spyOn(TransferOrders.prototype, 'cancel'), restart: vi.spyOn(TransferOrders.prototype, 'restart') };
    const ordered = (kind: keyof typeof calls): bigint[] => calls[kind].mock.calls.map(([ref]) => ref.specialId);
    const partnerOrder = async (packet: Packet): Promise<Packet> => {
      const { channel } = await b!.pool.openChannel('hosta');
      try {
        await channel.send(packet);
        return await channel.receive(10_000);
      } finally {
        channel.close();
      }
    };
    const restOrder = async (verb: string): Promise<void> => {
      const res = await fetch(`${api!.base}/v2/transfers/${refs[1]!.specialId}_hostb/${verb}`, { method: 'PUT', headers: { authorization: ADMIN } });
      expect(res.status, await res.text()).toBe(200);
    };
    const sameRows = async (): Promise<Record<string, unknown>> => {
      const [r1, r2] = (await Promise.all(refs.map((ref) => a!.row(ref)))).map(comparable);
      expect(r1).toEqual(r2);
      return r1!;
    };
    // Stop in the legacy Valid form.
    expect(await partnerOrder(encodeValidCommand({ cmd: 'stop', ...refs[0]! }))).toMatchObject({ kind: 'valid', middle: 'O' });
    await restOrder('stop');
    expect(ordered('stop')).toEqual([refs[0]!.specialId, refs[1]!.specialId]);
    expect(await sameRows()).toMatchObject({ updatedInfo: 4, globalStep: 5, infoStatus: { char: 'H' }, rank: 7 });
    // Restart in the JSON form (v2's restart stops first: a stopped row stays as it is).
    const restart = newJsonCommand('RestartTransferJsonPacket', { ...lower(refs[0]!), restarttime: null, requestUserPacket: PacketType.VALID });
    expect(await partnerOrder({ kind: 'jsonCommand', command: restart, result: '', subType: PacketType.VALID })).toMatchObject({ kind: 'jsonCommand', result: ErrorCode.PreProcessingOk.char });
    await restOrder('restart');
    expect(ordered('restart')).toEqual([refs[0]!.specialId, refs[1]!.specialId]);
    expect(await sameRows()).toMatchObject({ updatedInfo: 3, globalStep: 2, infoStatus: { char: 'B' }, rank: 7 });
    // Cancel in the JSON form.
    const cancel = newJsonCommand('StopOrCancelJsonPacket', { ...lower(refs[0]!), requestUserPacket: PacketType.CANCEL });
    expect(await partnerOrder({ kind: 'jsonCommand', command: cancel, result: '', subType: PacketType.CANCEL })).toMatchObject({ kind: 'jsonCommand', result: 'O' });
    await restOrder('cancel');
    expect(ordered('cancel')).toEqual([refs[0]!.specialId, refs[1]!.specialId]);
    expect(await sameRows()).toMatchObject({ updatedInfo: 4, infoStatus: { char: 'K' }, rank: 0 });
  });
});

/** A transfer's reference as the JSON orders name it. */
function lower(ref: { specialId: bigint; requester: string; requested: string }): { specialid: bigint; requester: string; requested: string } {
  return { specialid: ref.specialId, requester: ref.requester, requested: ref.requested };
}
