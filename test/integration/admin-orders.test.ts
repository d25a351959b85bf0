// The original's administrative requests answered by a real svc-r66server (issue 38): bandwidth
// (ChangeBandwidthLimits), configuration import (ConfigImport) and block/unblock (ServerShutdown
// -block/-unblock), in their legacy and JSON forms as the packet spec gives them, through the real
// listener; their effects on the live shaper, the partners and rules, REST, the scheduler and the
// running transfers; every refusal. Then a walk of every request kind and sub-type: none is
// answered Unimplemented.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Digest } from '../../src/model/digest.js';
import { ErrorCode, type ErrorCodeInfo } from '../../src/model/error-code.js';
import { ILLEGAL_SPECIAL_ID, UpdatedInfo } from '../../src/model/transfer.js';
import { R66Error } from '../../src/model/r66-error.js';
import {
  authentPacket, buildVersionString, deriveWireKey, encodeFrame, InformationKind, newJsonCommand, NOCHANNEL, parseJsonCommand, PacketType,
  type JsonCommand, type Packet,
} from '../../src/protocol/index.js';
import { PASSWORD_HEX, sandbox, spawnCli, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { RawPeer, type ReceivedFrame } from '../net/raw-peer.js';
import { writeClientSide } from '../watch/watch-helpers.js';
import { waitFor } from '../helpers/wait.js';
import type { Harness } from '../http/harness.js';
import { v1 } from '../http/v1-client.js';
import {
  killNodes, logsOf, openCaller, order, rest, rowOf, rowsDone, SEND_RULE, startNodePair, submitByRest, writePatternFile,
  type Caller, type Node,
} from '../transfer/servers.js';

const P = 'org.waarp.openr66.protocol.localhandler.packet.json.';
// hostc: the operator's tools (LIMIT, CONFIGADMIN, SYSTEM); hostd: a plain partner; hostb may import.
const ROLES = '<role><roleid>hostc</roleid><roleset>LIMIT CONFIGADMIN SYSTEM LOGCONTROL</roleset></role>'
  + '<role><roleid>hostd</roleid><roleset>PARTNER</roleset></role><role><roleid>hostb</roleid><roleset>CONFIGADMIN</roleset></role>';
const ADMIN_KEY = deriveWireKey('password');

let box: Sandbox;
let a: Node;
let b: Node;
let ops: Caller;
let plain: Caller;
/** The limits of the configuration, as REST v1 read them before any order. */
let configured: Record<string, unknown>;

beforeAll(async () => {
  box = sandbox();
  // v1admin: a client-only partner (negative port), the user REST v1 accepts.
  const extra = [{ id: 'hostc', port: 1 }, { id: 'hostd', port: 1 }, { id: 'v1admin', port: -1 }];
  ({ a, b } = await startNodePair(box, { rest: true, roles: ROLES, partners: extra, rules: SEND_RULE, admins: ['hosta', 'v1admin'] }, { rest: true, rules: SEND_RULE }));
  ops = await openCaller(box, 'hostc', [a]);
  plain = await openCaller(box, 'hostd', [a]);
}, 90_000);

afterAll(async () => {
  await ops?.close();
  await plain?.close();
  killNodes(a, b);
  box?.cleanup();
});

/** The JSON form exactly as the original's tools write it (packets §16.2), parsed by our codec. */
function javaJson(text: string): JsonCommand {
  const cmd = parseJsonCommand(text);
  expect(cmd, text).not.toBeNull();
  return cmd!;
}

/** The Error packet answering `packet` (its code and message). */
async function refusal(caller: Caller, packet: Packet): Promise<{ code: ErrorCodeInfo; message: string }> {
  const answer = await order(caller, 'hosta', packet);
  expect(answer.kind, JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toBe('error');
  return answer as Extract<Packet, { kind: 'error' }>;
}

/** The live limits as REST v1 GET /bandwidth reads them. */
async function v1Bandwidth(): Promise<Record<string, unknown>> {
  const r = await v1({ base: `http://127.0.0.1:${a.restPort}` } as Harness, 'GET', '/bandwidth', { user: 'v1admin', key: null });
  expect(r.status, r.text).toBe(200);
  return ((r.json().answer as { results: Array<Record<string, unknown>> }).results[0])!;
}

describe('bandwidth (ChangeBandwidthLimits, role LIMIT)', () => {
  it('legacy get and set: the values in force, then "Bandwidth changed"; REST v1 shows the change', async () => {
    const got = await order(ops, 'hosta', { kind: 'valid', header: '-1', middle: '-1', subType: PacketType.BANDWIDTH });
    const before = await v1Bandwidth();
    configured = before;
    expect(got).toEqual({ kind: 'valid', header: `${before.writeglobal} ${before.readglobal} ${before.writesession} ${before.readsession}`, middle: 'O', subType: PacketType.REQUESTUSER });

    const set = await order(ops, 'hosta', { kind: 'valid', header: '250005 250000', middle: '250000 -1', subType: PacketType.BANDWIDTH });
    expect(set).toEqual({ kind: 'valid', header: 'Bandwidth changed', middle: 'O', subType: PacketType.REQUESTUSER });
    // Truncated to a multiple of 10; -1 keeps the read session limit, lowered to its global one.
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 250000, readglobal: 250000, writesession: 250000, readsession: 250000 });
    // An incomplete form is the get; a value that is not a number is an incorrect command (n).
    expect(await order(ops, 'hosta', { kind: 'valid', header: '1000', middle: '', subType: PacketType.BANDWIDTH }))
      .toEqual({ kind: 'valid', header: '250000 250000 250000 250000', middle: 'O', subType: PacketType.REQUESTUSER });
    expect((await refusal(ops, { kind: 'valid', header: '1000 x', middle: '10 10', subType: PacketType.BANDWIDTH })).code).toBe(ErrorCode.IncorrectCommand);
  });

  it('JSON: the same object with the values now in force, O; 0 lifts every limit', async () => {
    const json = javaJson(`{"@class":"${P}BandwidthJsonPacket","comment":null,"requestUserPacket":19,"setter":true,"writeglobal":0,"readglobal":0,"writesession":0,"readsession":0}`);
    const answer = await order(ops, 'hosta', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.BANDWIDTH });
    expect(answer).toMatchObject({ kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER, command: { jsonClass: 'BandwidthJsonPacket', requestUserPacket: 19, setter: true, writeglobal: 0n, readglobal: 0n, writesession: 0n, readsession: 0n } });
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 0, readglobal: 0, writesession: 0, readsession: 0 });
    const get = javaJson(`{"@class":"${P}BandwidthJsonPacket","comment":null,"requestUserPacket":19,"setter":false,"writeglobal":-10,"readglobal":-10,"writesession":-10,"readsession":-10}`);
    expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: get, result: '', subType: PacketType.BANDWIDTH })).toMatchObject({ result: 'O', command: { writeglobal: 0n, readsession: 0n } });
  });

  it('a partner without LIMIT is refused: Error A "Not correctly authenticated", nothing changed', async () => {
    const err = await refusal(plain, { kind: 'valid', header: '1000 1000', middle: '1000 1000', subType: PacketType.BANDWIDTH });
    expect(err.code).toBe(ErrorCode.BadAuthent);
    expect(err.message).toContain('Not correctly authenticated');
    const json = newJsonCommand('BandwidthJsonPacket', { requestUserPacket: 19, setter: true, writeglobal: 1000n });
    expect((await refusal(plain, { kind: 'jsonCommand', command: json, result: '', subType: PacketType.BANDWIDTH })).code).toBe(ErrorCode.BadAuthent);
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 0 });
  });
});

describe('configuration import (ConfigImport, role CONFIGADMIN)', () => {
  const conf = (): string => join(a.home, 'conf');

  it('legacy rules file: " Rule:OK", O; the rule is served at once', async () => {
    writeFileSync(join(conf(), 'imported.rules.xml'), '<rules><rule><idrule>imported</idrule><hostids/><mode>1</mode></rule></rules>\n');
    // Before the import hosta does not know the rule (Information: f).
    expect((await refusal(ops, { kind: 'information', ruleOrId: 'imported', request: InformationKind.ASKLIST, filename: '*' })).code).toBe(ErrorCode.FileNotFound);
    const answer = await order(ops, 'hosta', { kind: 'valid', header: '0 ', middle: `0 ${join(conf(), 'imported.rules.xml')}`, subType: PacketType.CONFIMPORT });
    expect(answer).toEqual({ kind: 'valid', header: ' Rule:OK', middle: 'O', subType: PacketType.REQUESTUSER });
    // Known now: a list of an empty out directory is the original's "Error while Request" (I), not f.
    expect((await refusal(ops, { kind: 'information', ruleOrId: 'imported', request: InformationKind.ASKLIST, filename: '*' })).code).toBe(ErrorCode.Internal);
    const r = await rest(a, 'GET', '/v2/rules/imported');
    expect(r.status).toBe(200);
  });

  it('JSON hosts file: imported, O; the new partner authenticates at once', async () => {
    const file = join(conf(), 'more.authent.xml');
    writeFileSync(file, `<authent><entry><hostid>hoste</hostid><address>127.0.0.1</address><port>1</port><key>${PASSWORD_HEX}</key></entry></authent>\n`);
    const json = newJsonCommand('ConfigImportJsonPacket', { requestUserPacket: 12, host: file });
    const answer = await order(ops, 'hosta', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.CONFIMPORT });
    expect(answer).toMatchObject({
      kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER,
      command: { jsonClass: 'ConfigImportResponseJsonPacket', command: 0, host: file, importedhost: true, purgedhost: false, importedrule: false },
    });
    const hoste = await openCaller(box, 'hoste', [a]);
    try {
      const echo = await order(hoste, 'hosta', { kind: 'test', header: 'MSG', middle: 'hello', counter: 100 });
      expect(echo).toMatchObject({ kind: 'valid', subType: PacketType.TEST });
    } finally {
      await hoste.close();
    }
  });

  it('by id: the rules file hostb sent to hosta by transfer <id>, imported with purge', async () => {
    const rules = join(b.home, 'out', 'byid.rules.xml');
    writeFileSync(rules, '<rules><rule><idrule>send</idrule><hostids/><mode>1</mode></rule><rule><idrule>byid</idrule><hostids/><mode>1</mode></rule></rules>\n');
    const id = await submitByRest(b, 'byid.rules.xml', 'hosta');
    await rowsDone(b, a, id);
    const asB = await openCaller(box, 'hostb', [a]);
    try {
      const json = newJsonCommand('ConfigImportJsonPacket', { requestUserPacket: 12, ruleid: id, purgerule: true });
      const answer = await order(asB, 'hosta', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.CONFIMPORT });
      expect(answer).toMatchObject({ result: 'O', command: { importedrule: true, purgedrule: true, rule: null } });
    } finally {
      await asB.close();
    }
    // Purged: `imported` is gone, `byid` and `send` are there.
    expect((await rest(a, 'GET', '/v2/rules/imported')).status).toBe(404);
    expect((await rest(a, 'GET', '/v2/rules/byid')).status).toBe(200);
  }, 60_000);

  it('a bad file: legacy " Rule:KO" T, JSON importedrule false T; nothing changed', async () => {
    const answer = await order(ops, 'hosta', { kind: 'valid', header: '0 ', middle: '1 /etc/passwd', subType: PacketType.CONFIMPORT });
    expect(answer).toEqual({ kind: 'valid', header: ' Rule:KO', middle: 'T', subType: PacketType.REQUESTUSER });
    writeFileSync(join(conf(), 'notrules.xml'), '<roles></roles>\n');
    const json = newJsonCommand('ConfigImportJsonPacket', { requestUserPacket: 12, rule: join(conf(), 'notrules.xml'), purgerule: true });
    expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.CONFIMPORT }))
      .toMatchObject({ result: 'T', command: { importedrule: false, purgedrule: false } });
    // An id that is no transfer of this caller.
    const byId = newJsonCommand('ConfigImportJsonPacket', { requestUserPacket: 12, hostid: 42n });
    expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: byId, result: '', subType: PacketType.CONFIMPORT })).toMatchObject({ result: 'T', command: { importedhost: false } });
    expect((await rest(a, 'GET', '/v2/rules/byid')).status).toBe(200);
  });

  it('JSON roles file with purge: the roles apply to R66 orders at the next scheduler period, and back again', async () => {
    const rulesFile = join(conf(), 'byroles.rules.xml');
    writeFileSync(rulesFile, '<rules><rule><idrule>byroles</idrule><hostids/><mode>1</mode></rule></rules>\n');
    const importRules = newJsonCommand('ConfigImportJsonPacket', { requestUserPacket: 12, rule: rulesFile });
    const importRoles = async (roles: string): Promise<void> => {
      const file = join(conf(), 'new.roles.xml');
      writeFileSync(file, `<roles>${roles}</roles>\n`);
      const json = newJsonCommand('ConfigImportJsonPacket', { requestUserPacket: 12, roles: file, purgeroles: true });
      expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.CONFIMPORT }))
        .toMatchObject({ result: 'O', command: { importedroles: true, purgedroles: true } });
    };
    // hostd (PARTNER) may not import; once the imported roles give it CONFIGADMIN, it may.
    expect((await refusal(plain, { kind: 'jsonCommand', command: importRules, result: '', subType: PacketType.CONFIMPORT })).code).toBe(ErrorCode.BadAuthent);
    await importRoles(ROLES.replace('<roleset>PARTNER</roleset>', '<roleset>PARTNER CONFIGADMIN</roleset>'));
    await waitFor(async () => (await order(plain, 'hosta', { kind: 'jsonCommand', command: importRules, result: '', subType: PacketType.CONFIMPORT })).kind === 'jsonCommand',
      { what: "hostd's import accepted once the imported roles apply", timeoutMs: 20_000 });
    expect((await rest(a, 'GET', '/v2/rules/byroles')).status).toBe(200);
    // The configuration's roles again: hostd is refused again.
    await importRoles(ROLES);
    await waitFor(async () => (await order(plain, 'hosta', { kind: 'jsonCommand', command: importRules, result: '', subType: PacketType.CONFIMPORT })).kind === 'error',
      { what: "hostd's import refused again", timeoutMs: 20_000 });
  }, 60_000);

  it('a partner without CONFIGADMIN is refused with A', async () => {
    writeFileSync(join(conf(), 'evil.rules.xml'), '<rules><rule><idrule>evil</idrule><hostids/><mode>1</mode></rule></rules>\n');
    const err = await refusal(plain, { kind: 'valid', header: '0 ', middle: `1 ${join(conf(), 'evil.rules.xml')}`, subType: PacketType.CONFIMPORT });
    expect(err.code).toBe(ErrorCode.BadAuthent);
    expect((await rest(a, 'GET', '/v2/rules/evil')).status).toBe(404);
  });
});

let requestIds = 777000100n;

/** A partner's new transfer Request to hosta (a new id each time); its answer. */
function newRequest(): Promise<Packet> {
  requestIds += 1n;
  return order(ops, 'hosta', {
    kind: 'request', encoding: 'json', rule: 'send', mode: 1, way: 0, filename: 'x.txt', blockSize: 65536, rank: 0,
    specialId: requestIds, code: ErrorCode.InitOk, length: 3n, limit: 0n, fileInformation: '',
  });
}

describe('block and unblock (ServerShutdown -block/-unblock: SYSTEM and the admin key)', () => {
  it('refused without the admin key or without SYSTEM: Error R "Invalid Block comand"', async () => {
    const wrong = await refusal(ops, { kind: 'blockRequest', block: true, key: deriveWireKey('not the password') });
    expect(wrong).toMatchObject({ code: ErrorCode.RemoteError, message: 'Invalid Block comand' });
    expect((await refusal(plain, { kind: 'blockRequest', block: true, key: ADMIN_KEY })).code).toBe(ErrorCode.RemoteError);
    // Not blocked: a new request is accepted (answered way 1, code i).
    expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.InitOk });
  });

  it('blocked: running transfers go on; partners get l, REST 503, the scheduler waits; unblocked: all start again', async () => {
    // A slow transfer: 400 KB at 100 KB/s out of hosta.
    await order(ops, 'hosta', { kind: 'valid', header: '100000 0', middle: '0 0', subType: PacketType.BANDWIDTH });
    await writePatternFile(join(a.home, 'out', 'slow.bin'), 400_000);
    const t0 = Date.now();
    const slow = await submitByRest(a, 'slow.bin', 'hostb');
    // Due in 3 s: submitted before the block, started by the scheduler only after the unblock.
    const later = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: 'slow.bin', requested: 'hostb', start: new Date(Date.now() + 3000).toISOString() });
    expect(later.status).toBe(201);
    const laterId = BigInt(/\/v2\/transfers\/(-?\d+)_/.exec(later.headers.get('transfer-uri') ?? '')![1]!);
    await waitFor(async () => Number((await rowOf(a, slow))?.rank ?? 0) > 0, { what: 'the slow transfer under way', timeoutMs: 20_000 });

    expect(await order(ops, 'hosta', { kind: 'blockRequest', block: true, key: ADMIN_KEY }))
      .toEqual({ kind: 'valid', header: 'Block new request', middle: 'O', subType: PacketType.REQUESTUSER });
    expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.ServerOverloaded });
    const refused = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: 'slow.bin', requested: 'hostb' });
    expect(refused.status).toBe(503);

    // The running one ends well, shaped by the limit set over R66 (>= 3 s for 400 KB at 100 KB/s).
    await rowsDone(a, b, slow);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    // The scheduled one is due and stays to submit: the scheduler says it waits for the unblock.
    await waitFor(() => logsOf(a, 'new transfers are blocked: due transfers wait for the unblock').length > 0, { what: 'the scheduler holding the due row', timeoutMs: 20_000 });
    expect(Number((await rowOf(a, laterId))?.updatedinfo)).toBe(UpdatedInfo.TOSUBMIT);

    const unblock = javaJson(`{"@class":"${P}ShutdownOrBlockJsonPacket","comment":null,"requestUserPacket":24,"key":"${ADMIN_KEY.toString('base64')}","shutdownOrBlock":false,"restartOrBlock":false}`);
    expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: unblock, result: '', subType: PacketType.BLOCKREQUEST }))
      .toMatchObject({ kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER, command: { jsonClass: 'ShutdownOrBlockJsonPacket', comment: 'Unblock new request', requestUserPacket: 24 } });
    await order(ops, 'hosta', { kind: 'valid', header: '0 0', middle: '0 0', subType: PacketType.BANDWIDTH });
    await rowsDone(a, b, laterId);
    expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.InitOk });
  }, 90_000);

  it('JSON block with a wrong key is refused with R; with the key it answers "Block new request"', async () => {
    const bad = newJsonCommand('ShutdownOrBlockJsonPacket', { requestUserPacket: 24, key: deriveWireKey('nope'), shutdownOrBlock: false, restartOrBlock: true });
    expect((await refusal(ops, { kind: 'jsonCommand', command: bad, result: '', subType: PacketType.BLOCKREQUEST })).code).toBe(ErrorCode.RemoteError);
    const ok = newJsonCommand('ShutdownOrBlockJsonPacket', { requestUserPacket: 24, key: ADMIN_KEY, shutdownOrBlock: false, restartOrBlock: true });
    expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: ok, result: '', subType: PacketType.BLOCKREQUEST })).toMatchObject({ result: 'O', command: { comment: 'Block new request' } });
    expect(await order(ops, 'hosta', { kind: 'blockRequest', block: false, key: ADMIN_KEY })).toMatchObject({ header: 'Unblock new request', middle: 'O' });
  });
});

/**
 * One frame laid out by hand as the packet spec's envelope reminder gives it (not through our
 * encoder): the bytes the original's tools write.
 */
function javaFrame(dst: number, src: number, type: number, header: Buffer, middle: Buffer, end: Buffer): Buffer {
  const head = Buffer.alloc(26);
  head.writeInt32BE(22 + header.length + middle.length + end.length, 0);
  head.writeInt32BE(dst, 4);
  head.writeInt32BE(src, 8);
  head[12] = type;
  head.writeInt32BE(9 + header.length, 13);
  head.writeInt32BE(middle.length, 17);
  head.writeInt32BE(end.length, 21);
  head[25] = type;
  return Buffer.concat([head, header, middle, end]);
}

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
let localIds = 0x2842d051;

/**
 * What the original's tool does on a new connection as `id` (password "password"): Authent on a
 * local channel, the order's frame (built by `build` for that channel and the server's) on it,
 * then the first frame answered.
 */
async function asJavaTool(id: string, build: (dst: number, src: number) => Buffer): Promise<{ answer: ReceivedFrame; expectRaw(type: number, header: Buffer, middle: Buffer, end: Buffer): void }> {
  const peer = await RawPeer.open(a.port);
  try {
    const local = ++localIds;
    const version = buildVersionString({ hostId: id, finalHash: true, digest: Digest.SHA512, proxified: false, compression: false });
    peer.write(encodeFrame(NOCHANNEL, local, authentPacket(id, 'password', version, 0, local)));
    const authent = await peer.next();
    expect(authent?.packet).toMatchObject({ kind: 'authent', hostId: 'hosta', way: 1 });
    const server = authent!.frame.srcId;
    peer.write(build(server, local));
    const answer = await peer.next();
    expect(answer, 'an answer before the connection closed').not.toBeNull();
    return { answer: answer!, expectRaw: (type, header, middle, end) => expect(answer!.raw.toString('hex')).toBe(javaFrame(local, server, type, header, middle, end).toString('hex')) };
  } finally {
    peer.destroy();
  }
}

/** A JsonCommand frame holding `json` exactly as written. */
const jsonFrame = (json: string, subType: number) => (dst: number, src: number): Buffer =>
  javaFrame(dst, src, PacketType.JSONREQUEST, utf8(json), Buffer.alloc(0), Buffer.of(subType));
const validFrame = (header: string, middle: string, subType: number) => (dst: number, src: number): Buffer =>
  javaFrame(dst, src, PacketType.VALID, utf8(header), utf8(middle), Buffer.of(subType));
const blockFrame = (flag: number, key: Buffer) => (dst: number, src: number): Buffer =>
  javaFrame(dst, src, PacketType.BLOCKREQUEST, Buffer.concat([Buffer.of(flag), key]), Buffer.alloc(0), Buffer.alloc(0));

/** The Error answer's parts: message, code character, and the action (FORWARDCLOSECODE 3, packets §6). */
function errorParts(f: ReceivedFrame): { message: string; code: string; action: number } {
  expect(f.packet.kind, JSON.stringify(f.packet, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toBe('error');
  const lp = f.frame.localPacket;
  const h = lp.readInt32BE(0) - 9;
  const m = lp.readInt32BE(4);
  return { message: lp.subarray(13, 13 + h).toString('utf8'), code: lp.subarray(13 + h, 13 + h + m).toString('utf8'), action: lp.readInt32BE(13 + h + m) };
}

/** BlockRequest as `id` with the block flag, then with `unblockFlag`: each answer byte for byte, and a new Request answered l, then i. */
async function blockThenUnblock(id: string, unblockFlag: number): Promise<void> {
  const block = await asJavaTool(id, blockFrame(1, ADMIN_KEY));
  block.expectRaw(PacketType.VALID, utf8('Block new request'), utf8('O'), Buffer.of(15));
  expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.ServerOverloaded });
  const unblock = await asJavaTool(id, blockFrame(unblockFlag, ADMIN_KEY));
  unblock.expectRaw(PacketType.VALID, utf8('Unblock new request'), utf8('O'), Buffer.of(15));
  expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.InitOk });
}

describe('the frames of the original\'s tools, byte for byte, through the real listener', () => {
  const ILLEGAL = '-9223372036854775808';

  it('ChangeBandwidthLimits (JSON 19 as the Java tool writes it): the object with the four values, O, 15; legacy get', async () => {
    const set = `{"@class":"${P}BandwidthJsonPacket","comment":null,"requestUserPacket":19,"setter":true,"writeglobal":250000,"readglobal":250000,"writesession":250000,"readsession":250000}`;
    const { answer } = await asJavaTool('hostc', jsonFrame(set, 19));
    expect(answer.packet).toMatchObject({ kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER, command: { jsonClass: 'BandwidthJsonPacket', setter: true, writeglobal: 250000n, readglobal: 250000n, writesession: 250000n, readsession: 250000n } });
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 250000, readglobal: 250000, writesession: 250000, readsession: 250000 });
    // The legacy get, answered Valid("<wg> <rg> <ws> <rs>", "O", 15) byte for byte.
    const get = await asJavaTool('hostc', validFrame('-1', '-1', 19));
    get.expectRaw(PacketType.VALID, utf8('250000 250000 250000 250000'), utf8('O'), Buffer.of(15));
    // Setting them back to 0 lifts the limits (legacy set: "Bandwidth changed").
    const lift = await asJavaTool('hostc', validFrame('0 0', '0 0', 19));
    lift.expectRaw(PacketType.VALID, utf8('Bandwidth changed'), utf8('O'), Buffer.of(15));
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 0, readglobal: 0, writesession: 0, readsession: 0 });
  });

  it('ConfigImport (JSON 12 with every field, nulls and ILLEGALVALUE ids, as the Java tool writes it): imported, O; the rule is served at once', async () => {
    const file = join(a.home, 'conf', 'java.rules.xml');
    writeFileSync(file, '<rules><rule><idrule>javarule</idrule><hostids/><mode>1</mode></rule></rules>\n');
    const json = `{"@class":"${P}ConfigImportJsonPacket","comment":null,"requestUserPacket":12,"purgehost":false,"purgerule":false,"purgebusiness":false,"purgealias":false,"purgeroles":false,`
      + `"host":null,"rule":${JSON.stringify(file)},"business":null,"alias":null,"roles":null,"hostid":${ILLEGAL},"ruleid":${ILLEGAL},"businessid":${ILLEGAL},"aliasid":${ILLEGAL},"rolesid":${ILLEGAL}}`;
    const { answer } = await asJavaTool('hostc', jsonFrame(json, 12));
    expect(answer.packet).toMatchObject({
      kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER,
      command: { jsonClass: 'ConfigImportResponseJsonPacket', command: 0, rule: file, host: null, importedrule: true, importedhost: false, purgedrule: false, hostid: BigInt(ILLEGAL) },
    });
    expect((await rest(a, 'GET', '/v2/rules/javarule')).status).toBe(200);
    // The legacy form: Valid("Host:.. Rule:..", code, 15) byte for byte.
    const legacy = await asJavaTool('hostc', validFrame('0 ', `0 ${file}`, 12));
    legacy.expectRaw(PacketType.VALID, utf8(' Rule:OK'), utf8('O'), Buffer.of(15));
    // The legacy tool's "null" for a file it was not given fails to load (packets §5.1): Host:KO, T.
    const withNull = await asJavaTool('hostc', validFrame('0 null', `0 ${file}`, 12));
    withNull.expectRaw(PacketType.VALID, utf8('Host:KO Rule:OK'), utf8('T'), Buffer.of(15));
    // A file that does not exist: KO, T (not an internal error).
    const missing = await asJavaTool('hostc', validFrame('0 ', `0 ${join(a.home, 'conf', 'no-such.rules.xml')}`, 12));
    missing.expectRaw(PacketType.VALID, utf8(' Rule:KO'), utf8('T'), Buffer.of(15));
  });

  it('ServerShutdown -block / -unblock (BlockRequest 24, 43 bytes): Valid("Block new request", "O", 15), then "Unblock new request"', async () => {
    // "anything else = unblock" (packets §13.5).
    await blockThenUnblock('hostc', 2);
    // The JSON form as the Java tool writes it (key in Base64).
    const json = `{"@class":"${P}ShutdownOrBlockJsonPacket","comment":null,"requestUserPacket":24,"key":"${ADMIN_KEY.toString('base64')}","shutdownOrBlock":false,"restartOrBlock":false}`;
    const { answer } = await asJavaTool('hostc', jsonFrame(json, 24));
    expect(answer.packet).toMatchObject({ kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER, command: { jsonClass: 'ShutdownOrBlockJsonPacket', comment: 'Unblock new request', shutdownOrBlock: false, restartOrBlock: false } });
  });

  it('ServerShutdown as the original runs it: from the server\'s own host id (its server.xml), block then unblock', async () => {
    await blockThenUnblock('hosta', 0);
  });

  it('each refusal as the original: A "Not correctly authenticated" without LIMIT or CONFIGADMIN, R "Invalid Block comand" without SYSTEM or the key; nothing changed', async () => {
    const file = join(a.home, 'conf', 'refused.rules.xml');
    writeFileSync(file, '<rules><rule><idrule>refused</idrule><hostids/><mode>1</mode></rule></rules>\n');
    const cases: Array<[string, string, (dst: number, src: number) => Buffer, string, string]> = [
      ['bandwidth JSON, no LIMIT', 'hostd', jsonFrame(`{"@class":"${P}BandwidthJsonPacket","comment":null,"requestUserPacket":19,"setter":true,"writeglobal":1000,"readglobal":1000,"writesession":1000,"readsession":1000}`, 19), 'A', 'Not correctly authenticated'],
      ['bandwidth legacy, no LIMIT', 'hostd', validFrame('1000 1000', '1000 1000', 19), 'A', 'Not correctly authenticated'],
      ['import JSON, no CONFIGADMIN', 'hostd', jsonFrame(`{"@class":"${P}ConfigImportJsonPacket","comment":null,"requestUserPacket":12,"purgerule":true,"rule":${JSON.stringify(file)},"ruleid":${ILLEGAL}}`, 12), 'A', 'Not correctly authenticated'],
      ['import legacy, no CONFIGADMIN', 'hostd', validFrame('0 ', `1 ${file}`, 12), 'A', 'Not correctly authenticated'],
      ['block, no SYSTEM', 'hostd', blockFrame(1, ADMIN_KEY), 'R', 'Invalid Block comand'],
      ['block JSON, no SYSTEM', 'hostd', jsonFrame(`{"@class":"${P}ShutdownOrBlockJsonPacket","comment":null,"requestUserPacket":24,"key":"${ADMIN_KEY.toString('base64')}","shutdownOrBlock":false,"restartOrBlock":true}`, 24), 'R', 'Invalid Block comand'],
      ['block, wrong key', 'hostc', blockFrame(1, deriveWireKey('not the password')), 'R', 'Invalid Block comand'],
      ['block JSON, wrong key', 'hostc', jsonFrame(`{"@class":"${P}ShutdownOrBlockJsonPacket","comment":null,"requestUserPacket":24,"key":"${deriveWireKey('nope').toString('base64')}","shutdownOrBlock":false,"restartOrBlock":true}`, 24), 'R', 'Invalid Block comand'],
      ['block JSON, no key', 'hostc', jsonFrame(`{"@class":"${P}ShutdownOrBlockJsonPacket","comment":null,"requestUserPacket":24,"key":null,"shutdownOrBlock":false,"restartOrBlock":true}`, 24), 'R', 'Invalid Block comand'],
    ];
    for (const [name, id, build, code, message] of cases) {
      const e = errorParts((await asJavaTool(id, build)).answer);
      expect({ name, code: e.code, action: e.action, message: e.message.slice(0, message.length) }).toEqual({ name, code, action: 3, message });
    }
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 0, readglobal: 0, writesession: 0, readsession: 0 });
    expect((await rest(a, 'GET', '/v2/rules/refused')).status).toBe(404);
    expect((await rest(a, 'GET', '/v2/rules/javarule')).status).toBe(200);
    expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.InitOk });
  });
});

describe('a bandwidth order reaches the transfers already running', () => {
  it('lowering the global limit over R66 slows a transfer under way (the one global shaper)', async () => {
    // 200 KB/s out of hosta: 700 KB take about 3.5 s at that rate.
    await order(ops, 'hosta', { kind: 'valid', header: '200000 0', middle: '0 0', subType: PacketType.BANDWIDTH });
    await writePatternFile(join(a.home, 'out', 'running.bin'), 700_000);
    const t0 = Date.now();
    const id = await submitByRest(a, 'running.bin', 'hostb');
    await waitFor(async () => Number((await rowOf(a, id))?.rank ?? 0) > 0, { what: 'the transfer under way', timeoutMs: 20_000 });
    const changedAt = Date.now() - t0;
    // 40 KB/s from now on, as ChangeBandwidthLimits -wglob 40000 sends it.
    const json = javaJson(`{"@class":"${P}BandwidthJsonPacket","comment":null,"requestUserPacket":19,"setter":true,"writeglobal":40000,"readglobal":-10,"writesession":-10,"readsession":-10}`);
    expect(await order(ops, 'hosta', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.BANDWIDTH })).toMatchObject({ result: 'O', command: { writeglobal: 40000n } });
    await rowsDone(a, b, id);
    const took = Date.now() - t0;
    // Whatever was sent before the change (at most 200 KB/s since t0, plus a block of burst), the
    // rest at 40 KB/s: far beyond the 3.5 s the first limit alone would take.
    const sentBefore = Math.min(700_000, (changedAt / 1000) * 200_000 + 2 * 65536);
    expect(changedAt).toBeLessThan(3000);
    expect(took).toBeGreaterThanOrEqual(changedAt + ((700_000 - sentBefore) / 40_000) * 1000 * 0.8);
    await order(ops, 'hosta', { kind: 'valid', header: '0 0', middle: '0 0', subType: PacketType.BANDWIDTH });
  }, 90_000);
});

describe('a blocked host refuses a FileWatcher\'s transfers until unblocked', () => {
  const watchers: Running[] = [];
  afterAll(() => {
    for (const w of watchers) w.child.kill('SIGKILL');
  });

  /** A FileWatcher of hostb (its client.xml beside its server) towards hosta on `dir`, started. */
  async function watch(w: ReturnType<typeof writeClientSide>, dir: string, name: string, extra: string[]): Promise<Running> {
    mkdirSync(dir, { recursive: true });
    mkdirSync(join(box.dir, name), { recursive: true });
    const proc = spawnCli('client', ['spool', w.clientXml, '-to', 'hosta', '-rule', 'send', '-directory', dir, '-statusfile', join(box.dir, name, 'status.json'),
      '-stopfile', join(box.dir, name, 'stop'), '-elapse', '100', ...extra], w.env);
    watchers.push(proc);
    await waitFor(() => proc.stderr().includes('"msg":"watcher started"') || proc.child.exitCode !== null, { what: `${name} started`, timeoutMs: 20_000 });
    expect(proc.child.exitCode, proc.stderr()).toBeNull();
    return proc;
  }

  const arrived = (name: string) => (): boolean => readdirSync(join(a.home, 'in')).some((f) => f === name || f.endsWith(`_${name}`));
  const withOutput = (proc: Running) => (err: unknown): never => {
    throw new Error(`${(err as Error).message}\nhosta/in: ${readdirSync(join(a.home, 'in')).join(' ')}\n${proc.stderr().slice(-4000)}`);
  };

  it('direct mode: the watcher gets l, keeps the file, sends it after the unblock; submit mode: hostb\'s scheduler gets l and retries', async () => {
    expect(await order(ops, 'hosta', { kind: 'blockRequest', block: true, key: ADMIN_KEY })).toMatchObject({ header: 'Block new request' });
    const w = writeClientSide(box, b);
    const direct = await watch(w, join(box.dir, 'spool-direct'), 'watch-direct', ['-direct']);
    // Submit mode (the default): rows for hostb's scheduler, files inside hostb's out directory.
    const submit = await watch(w, join(b.home, 'out', 'spool-submit'), 'watch-submit', []);
    writeFileSync(join(box.dir, 'spool-direct', 'direct.txt'), 'watched while blocked\n');
    writeFileSync(join(b.home, 'out', 'spool-submit', 'submitted.txt'), 'submitted while blocked\n');
    await waitFor(() => /"msg":"transfer failed, retried later".*ServerOverloaded|ServerOverloaded.*"msg":"transfer failed, retried later"/.test(direct.stderr()), { what: 'the direct watcher refused with l', timeoutMs: 30_000 })
      .catch(withOutput(direct));
    const ids = await waitFor(() => /"ids":\["(-?\d+)"\],"msg":"file submitted"/.exec(submit.stderr())?.[1], { what: 'the file submitted', timeoutMs: 30_000 }).catch(withOutput(submit));
    await waitFor(async () => (await rowOf(b, BigInt(ids)))?.infostatus === ErrorCode.ServerOverloaded.char, { what: 'hostb\'s row refused with l', timeoutMs: 30_000 });
    expect(arrived('direct.txt')()).toBe(false);
    expect(arrived('submitted.txt')()).toBe(false);

    expect(await order(ops, 'hosta', { kind: 'blockRequest', block: false, key: ADMIN_KEY })).toMatchObject({ header: 'Unblock new request' });
    await waitFor(arrived('direct.txt'), { what: 'the direct watcher\'s file received after the unblock', timeoutMs: 30_000 }).catch(withOutput(direct));
    await rowsDone(b, a, BigInt(ids));
    expect(arrived('submitted.txt')()).toBe(true);
    for (const [proc, name] of [[direct, 'watch-direct'], [submit, 'watch-submit']] as const) {
      writeFileSync(join(box.dir, name, 'stop'), '');
      expect((await proc.exited).code).toBe(0);
    }
  }, 120_000);
});

describe('no request of the protocol is answered Unimplemented', () => {
  /** The answer, or null when the host answers nothing (the channel stays quiet). */
  async function answerTo(packet: Packet): Promise<Packet | R66Error | null> {
    const { channel } = await ops.pool.openChannel('hosta');
    try {
      await channel.send(packet);
      return await channel.receive(3000, 'the answer');
    } catch (err) {
      if (err instanceof R66Error && err.code === ErrorCode.ConnectionImpossible) return null;
      if (err instanceof R66Error) return err;
      throw err;
    } finally {
      channel.close();
    }
  }

  const key = 'hosta hostc 424242';
  const json = (name: Parameters<typeof newJsonCommand>[0], sub: number, values: Record<string, unknown> = {}): Packet =>
    ({ kind: 'jsonCommand', command: newJsonCommand(name, { requestUserPacket: sub, ...values } as never) as JsonCommand, result: '', subType: sub });
  const VALID_SUBTYPES = [4, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 99];
  const JSON_CASES: Array<[number, Packet]> = [
    [4, json('RestartTransferJsonPacket', 4, { requester: 'hostc', requested: 'hosta', specialid: 424242n })],
    [7, json('RequestJsonPacket', 7, { filename: 'x', filesize: 1n })],
    [8, json('ShutdownRequestJsonPacket', 8, { rank: 3 })],
    [9, json('StopOrCancelJsonPacket', 9, { requester: 'hostc', requested: 'hosta', specialid: 424242n })],
    [10, json('StopOrCancelJsonPacket', 10, { requester: 'hostc', requested: 'hosta', specialid: 424242n })],
    [11, json('ConfigExportJsonPacket', 11, { host: true })],
    [12, json('ConfigImportJsonPacket', 12, { hostid: ILLEGAL_SPECIAL_ID })],
    [13, json('JsonPacket', 13, { comment: 'hello' })],
    [15, json('JsonPacket', 15)],
    [16, json('LogJsonPacket', 16)],
    [17, json('LogJsonPacket', 17, { statusdone: true, start: Date.now() + 86_400_000 })],
    [18, json('InformationJsonPacket', 18, { request: 2, rulename: 'send', filename: '*' })],
    [19, json('BandwidthJsonPacket', 19)],
    [22, json('BusinessRequestJsonPacket', 22, { className: 'org.x.Unknown' })],
    [24, json('ShutdownOrBlockJsonPacket', 24, { key: deriveWireKey('wrong'), shutdownOrBlock: true })],
    [99, json('JsonPacket', 99)],
    // A class that does not fit its sub-type.
    [19, json('StopOrCancelJsonPacket', 19)],
  ];

  it('every Valid and JsonCommand sub-type, Information, Test, BusinessRequest, BlockRequest, and the packets that are no request', async () => {
    const cases: Array<[string, Packet]> = [
      ...VALID_SUBTYPES.map((s): [string, Packet] => [`valid ${s}`, { kind: 'valid', header: s === 19 ? '-1' : 'Request on Transfer', middle: s === 19 ? '-1' : key, subType: s }]),
      ...JSON_CASES.map(([s, p]): [string, Packet] => [`jsonCommand ${s} ${(p as { command: JsonCommand }).command.jsonClass}`, p]),
      ['information', { kind: 'information', ruleOrId: 'send', request: InformationKind.ASKEXIST, filename: 'nothing.txt' }],
      ['test', { kind: 'test', header: 'MSG', middle: 'hi', counter: 100 }],
      ['businessRequest', { kind: 'businessRequest', header: 'org.x.Unknown arg', delay: 0, way: 0 }],
      ['blockRequest', { kind: 'blockRequest', block: false, key: ADMIN_KEY }],
      // With a wrong key: refused (the right one would stop hosta).
      ['shutdown', { kind: 'shutdown', key: deriveWireKey('wrong'), restart: false }],
      // Not requests, but what may open a channel all the same: ignored (NoOp, EndRequest, and
      // Startup, "ignored with a warning", packets §1), or with no transfer on the channel, the
      // original's handler failing (R, packets §14.1 "unexpected exception in a handler").
      ['noOp', { kind: 'noOp' }],
      ['endRequest', { kind: 'endRequest', code: ErrorCode.CompleteOk, way: 0, info: '' }],
      ['startup', { kind: 'startup', localId: 5, fromSsl: false }],
      ['data', { kind: 'data', rank: 0, data: Buffer.from('x'), digest: Buffer.alloc(0) }],
      ['endTransfer', { kind: 'endTransfer', request: PacketType.REQUEST, way: 0, hash: '' }],
    ];
    const answers = await Promise.all(cases.map(async ([name, p]) => [name, await answerTo(p)] as const));
    const unimplemented = answers.filter(([, ans]) =>
      (ans instanceof R66Error && ans.code === ErrorCode.Unimplemented)
      || (ans !== null && !(ans instanceof R66Error) && ((ans.kind === 'error' && ans.code === ErrorCode.Unimplemented)
        || (ans.kind === 'valid' && ans.middle === 'U') || (ans.kind === 'jsonCommand' && ans.result === 'U'))));
    expect(unimplemented.map(([name, ans]) => `${name}: ${ans instanceof Error ? ans.message : JSON.stringify(ans, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`)).toEqual([]);
    // Spot checks of what the original answers.
    const by = new Map(answers);
    expect(by.get('valid 13')).toBeNull();
    expect(by.get('valid 99')).toBeNull();
    expect(by.get('jsonCommand 99 JsonPacket')).toMatchObject({ kind: 'jsonCommand', result: 'c', command: { comment: 'Invalid command', requestUserPacket: 99 } });
    expect(by.get('jsonCommand 19 StopOrCancelJsonPacket')).toMatchObject({ result: 'c' });
    expect(by.get('jsonCommand 24 ShutdownOrBlockJsonPacket')).toMatchObject({ code: ErrorCode.RemoteError, message: 'Invalid Shutdown comand' });
    expect(by.get('shutdown')).toMatchObject({ kind: 'error', code: ErrorCode.RemoteError, message: 'Invalid Shutdown comand' });
    expect(by.get('valid 7')).toMatchObject({ kind: 'error', code: ErrorCode.IncorrectCommand });
    expect(by.get('valid 19')).toMatchObject({ kind: 'valid', middle: 'O', subType: PacketType.REQUESTUSER });
    expect(by.get('jsonCommand 12 ConfigImportJsonPacket')).toMatchObject({ result: 'T' });
    expect([by.get('noOp'), by.get('endRequest'), by.get('startup')]).toEqual([null, null, null]);
    expect(by.get('data')).toMatchObject({ kind: 'error', code: ErrorCode.RemoteError });
    expect(by.get('endTransfer')).toMatchObject({ kind: 'error', code: ErrorCode.RemoteError });
    // hosta still serves.
    expect(await newRequest()).toMatchObject({ kind: 'request', way: 1, code: ErrorCode.InitOk });
  }, 60_000);

  it('a sub-type-only code sent as a packet type (9-12, 15-17, 19) is a decoding error R, as the original, not U', async () => {
    for (const type of [9, 10, 11, 12, 15, 16, 17, 19]) {
      const e = errorParts((await asJavaTool('hostc', (dst, src) => javaFrame(dst, src, type, utf8('-1'), utf8('-1'), Buffer.of(0)))).answer);
      expect({ type, code: e.code, action: e.action, message: e.message }).toEqual({ type, code: 'R', action: 3, message: `Unimplemented Packet Type received: ${type}` });
    }
  });
});

describe('a restart (the JSON shutdown order with restartOrBlock)', () => {
  it('goes back to the configured limits and unblocks, as the original (both live in memory only)', async () => {
    await order(ops, 'hosta', { kind: 'valid', header: '123450 123450', middle: '-1 -1', subType: PacketType.BANDWIDTH });
    await order(ops, 'hosta', { kind: 'blockRequest', block: true, key: ADMIN_KEY });
    expect(await v1Bandwidth()).toMatchObject({ writeglobal: 123450 });
    const restart = newJsonCommand('ShutdownOrBlockJsonPacket', { requestUserPacket: 24, key: ADMIN_KEY, shutdownOrBlock: true, restartOrBlock: true });
    const { channel } = await ops.pool.openChannel('hosta');
    await channel.send({ kind: 'jsonCommand', command: restart, result: '', subType: PacketType.BLOCKREQUEST });
    // No direct answer: the "Shutdown forced" notice every open channel gets (§9.12).
    expect(await channel.receive(15_000, 'the shutdown notice')).toEqual({ kind: 'valid', header: 'Shutdown forced', middle: '', subType: PacketType.SHUTDOWN });
    channel.close();
    const after = await waitFor(async () => {
      const l = await v1Bandwidth().catch(() => undefined);
      return l !== undefined && l.writeglobal !== 123450 ? l : undefined;
    }, { what: 'hosta back after its restart', timeoutMs: 60_000, intervalMs: 200 });
    expect(after).toMatchObject({ writeglobal: configured.writeglobal, readglobal: configured.readglobal, writesession: configured.writesession, readsession: configured.readsession });
    expect(await waitFor(async () => newRequest().catch(() => undefined), { what: 'a new request served', timeoutMs: 30_000, intervalMs: 200 }))
      .toMatchObject({ kind: 'request', way: 1, code: ErrorCode.InitOk });
    expect(a.proc!.child.exitCode).toBeNull();
  }, 90_000);
});
