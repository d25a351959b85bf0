import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getFileInfo, getTransferInfo } from '../../src/client/getinfo.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { newJsonCommand, PacketType, stringifyJsonCommand, type JsonCommand, type Packet } from '../../src/protocol/index.js';
import { netPairForSuite } from '../helpers/net-pair.js';
import { rule } from './harness.js';

describe('information requests between two hosts', () => {
  const p = netPairForSuite(async ({ b }) => {
    b.rules.set('private', rule('private', { hostIds: ['someoneelse'] }));
    b.rules.set('other', rule('other', { sendPath: '/outother' }));
    await mkdir(path.join(b.home, 'outother'));
    await writeFile(path.join(b.home, 'outother', 'x.dat'), 'x');
    const remote1 = path.join(b.home, 'out', 'remote1.txt');
    await writeFile(remote1, 'Hello from hostb 21!\n');
    await utimes(remote1, new Date(2026, 10, 21, 13, 36, 7, 536), new Date(2026, 10, 21, 13, 36, 7, 536));
    await writeFile(path.join(b.home, 'out', 'second.txt'), 'two');
    await writeFile(path.join(b.home, 'secret.txt'), 'not for partners');
    await symlink(path.join(b.home, 'secret.txt'), path.join(b.home, 'out', 'link.txt'));
  });

  it('answers existence checks with true/false and middle 1', async () => {
    expect(await getFileInfo(p.a.pool, 'hostb', 'send', 'exist', 'remote1.txt')).toMatchObject({ header: 'true', middle: '1' });
    expect(await getFileInfo(p.a.pool, 'hostb', 'send', 'exist', 'missing.txt')).toMatchObject({ header: 'false', middle: '1' });
    expect(await getFileInfo(p.a.pool, 'hostb', 'send', 'exist', 'rem§')).toMatchObject({ header: 'true' });
  });

  it('answers an MLSx detail like the original', async () => {
    const r = await getFileInfo(p.a.pool, 'hostb', 'send', 'detail', 'remote1.txt');
    expect(r.header).toMatch(/^ Size=21;Modify=20261121133607\.536;Type=file;Perm=adfwr; remote1\.txt$/);
    expect(r.middle).toBe('1');
  });

  it('lists virtual paths and MLSx lines, each ending with a line feed, with the count in the middle', async () => {
    const list = await getFileInfo(p.a.pool, 'hostb', 'send', 'list', '*.txt');
    expect(list.header).toBe('/out/remote1.txt\n/out/second.txt\n');
    expect(list.middle).toBe('2');
    const mlsx = await getFileInfo(p.a.pool, 'hostb', 'send', 'mlsx', 'remote*');
    expect(mlsx.lines).toEqual([' Size=21;Modify=20261121133607.536;Type=file;Perm=adfwr; remote1.txt']);
    expect(mlsx.header.endsWith('\n')).toBe(true);
    expect((await getFileInfo(p.a.pool, 'hostb', 'other', 'list', '')).header).toBe('/outother/x.dat\n');
  });

  it('answers Error I "Error while Request 2" when a list matches nothing (captures: session-b stream 2)', async () => {
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'list', '*.none')).rejects.toMatchObject({ message: 'Error while Request 2', code: ErrorCode.Internal });
  });

  it('refuses names leaving the rule directory with FileNotAllowed', async () => {
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'exist', '../secret.txt')).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'detail', path.join(p.b.home, 'secret.txt'))).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'detail', 'link.txt')).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
    // An absolute path inside the directory is fine.
    expect((await getFileInfo(p.a.pool, 'hostb', 'send', 'exist', path.join(p.b.home, 'out', 'second.txt'))).header).toBe('true');
    // A leading / elsewhere is a virtual path under the home: it must still name the rule directory.
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'exist', '/secret.txt')).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'exist', '/etc/passwd')).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
  });

  it('takes the virtual paths the listings show (/out/remote1.txt), as transfers do', async () => {
    expect((await getFileInfo(p.a.pool, 'hostb', 'send', 'exist', '/out/remote1.txt')).header).toBe('true');
    expect((await getFileInfo(p.a.pool, 'hostb', 'send', 'list', '/out/*.txt')).header).toBe('/out/remote1.txt\n/out/second.txt\n');
    expect((await getFileInfo(p.a.pool, 'hostb', 'send', 'detail', '/out/remote1.txt')).header).toMatch(/; remote1\.txt$/);
  });

  it('refuses an unknown rule with f, a rule not allowed for the partner with A, and answers U for transfer checks without a store', async () => {
    await expect(getFileInfo(p.a.pool, 'hostb', 'nope', 'list', '*')).rejects.toMatchObject({ code: ErrorCode.FileNotFound });
    await expect(getFileInfo(p.a.pool, 'hostb', 'private', 'list', '*')).rejects.toMatchObject({ code: ErrorCode.BadAuthent });
    await expect(getTransferInfo(p.a.pool, 'hostb', 42n, true)).rejects.toMatchObject({ code: ErrorCode.Unimplemented });
  });

  /** Sends one JsonCommand on a new channel and returns the answer. */
  async function json(command: JsonCommand | null, subType: number, raw = ''): Promise<Packet> {
    const { channel } = await p.a.pool.openChannel('hostb');
    try {
      await channel.send({ kind: 'jsonCommand', command, json: raw, result: '', subType });
      return await channel.receive(5_000, 'the answer');
    } finally {
      channel.close();
    }
  }

  it('answers the JSON forms: Information (18) as a Valid 18, Test (13) echoed with O (§9.11, §9.14)', async () => {
    const list = await json(newJsonCommand('InformationJsonPacket', { requestUserPacket: 18, request: 2, rulename: 'send', filename: '*.txt' }), PacketType.INFORMATION);
    expect(list).toEqual({ kind: 'valid', header: '/out/remote1.txt\n/out/second.txt\n', middle: '2', subType: PacketType.INFORMATION });
    const exist = await json(newJsonCommand('InformationJsonPacket', { request: 0, rulename: 'send', filename: 'remote1.txt' }), PacketType.INFORMATION);
    expect(exist).toMatchObject({ kind: 'valid', header: 'true', middle: '1' });
    const byId = await json(newJsonCommand('InformationJsonPacket', { id: 42n, idRequest: true, to: true }), PacketType.INFORMATION);
    expect(byId).toMatchObject({ kind: 'error', code: ErrorCode.Unimplemented });
    const test = await json(newJsonCommand('JsonPacket', { comment: 'ping' }), PacketType.TEST);
    expect(test).toMatchObject({ kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER });
    expect(test.kind === 'jsonCommand' && test.command).toEqual({ jsonClass: 'JsonPacket', comment: 'ping', requestUserPacket: 13 });
  });

  it('answers an unreadable JsonCommand or an unknown @class with "Invalid command" and c', async () => {
    for (const raw of ['not json', '{"@class":"org.example.Nope"}']) {
      const answer = await json(null, 9, raw);
      expect(answer).toMatchObject({ kind: 'jsonCommand', result: 'c', subType: PacketType.REQUESTUSER });
      expect(answer.kind === 'jsonCommand' && answer.command && stringifyJsonCommand(answer.command)).toBe(
        '{"@class":"org.waarp.openr66.protocol.localhandler.packet.json.JsonPacket","comment":"Invalid command","requestUserPacket":9}',
      );
    }
  });

  it('kept one connection for all these requests', () => {
    expect(p.a.pool.size).toBe(1);
    expect(p.b.listener!.openConnections).toBe(1);
  });
});
