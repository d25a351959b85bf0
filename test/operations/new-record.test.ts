// issue 22 item 5: a new row carries the follow id as the Java 3.6.2 client writes it: its own
// generated 64-bit id (not the transfer id), in FILEINFO only (`<info> {"follow":<id>}`), while
// TRANSFERINFO holds only ORIGINALSIZE (captures/cli-output-java-3.6.2.md).
import { describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { TransferMode } from '../../src/model/rule.js';
import { newFollowId, newTransferRecord, type NewRecordInput } from '../../src/transfer/new-record.js';
import { readInfoMap } from '../../src/tasks/transfer-info.js';
import { rule } from '../helpers/hosts.js';

const now = new Date(2026, 0, 1);
const input = (over: Partial<NewRecordInput> = {}): NewRecordInput => ({
  specialId: -8493305389941522420n, ownerId: 'hosta', requester: 'hosta', partner: 'hostb', rule: rule('send', TransferMode.SENDMODE),
  blockSize: 65536, file: 'hello.txt', size: 31, updatedInfo: UpdatedInfo.UNKNOWN, start: now, now, ...over,
});

describe('newTransferRecord follow id', () => {
  it('appends a follow id of its own to FILEINFO only', () => {
    const r = newTransferRecord(input({ fileInfo: 'out1' }));
    const follow = /^out1 \{"follow":(-?\d+)\}$/.exec(r.fileInfo)?.[1];
    expect(follow).toBeDefined();
    expect(BigInt(follow!)).not.toBe(r.specialId);
    expect(r.transferInfo).toBe('{"ORIGINALSIZE":31}');
  });

  it('gives each row a different follow id, a signed 64-bit value', () => {
    const ids = new Set(Array.from({ length: 100 }, () => readInfoMap(newTransferRecord(input()).fileInfo).follow?.toString()));
    expect(ids.size).toBe(100);
    const id = newFollowId();
    expect(BigInt.asIntN(64, id)).toBe(id);
  });

  it('keeps a follow id already in the information (restart, TRANSFER task), adds none with noFollow', () => {
    expect(newTransferRecord(input({ fileInfo: 'lot {"follow":42}' })).fileInfo).toBe('lot {"follow":42}');
    expect(newTransferRecord(input({ fileInfo: 'lot', noFollow: true })).fileInfo).toBe('lot');
    expect(newTransferRecord(input({ followId: 7n })).fileInfo).toBe('noinfo {"follow":7}');
    expect(newTransferRecord(input({ size: -1, transferInfo: 'x' })).transferInfo).toBe('x {"ORIGINALSIZE":-1}');
  });
});
