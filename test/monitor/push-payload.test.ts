// issue 26 item 7: the push item is written as text (payload.ts) for speed; it must be exactly the
// JSON of the object the original's keys describe (monitoring.md §A.3): the v2 transfer object
// without `id`, then specialId, followId, originalSize, uniqueId, hostId and the interval.
import { describe, expect, it } from 'vitest';
import { transferToJson } from '../../src/http/v2/converters.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { formatIsoLocal } from '../../src/model/iso-date.js';
import { pushBodyChunks, pushItem, type PayloadOptions } from '../../src/monitor/push/payload.js';
import { infoInteger, readInfoMap, stringifyInfoMap, type InfoMap } from '../../src/tasks/transfer-info.js';
import { transferRecord } from '../helpers/transfer-record.js';

/** The object route, written the plain way. */
function expected(r: TransferRecord, o: PayloadOptions): string {
  const { id: _id, ...fields } = transferToJson(r);
  const map = readInfoMap(r.transferInfo);
  const long = (v: bigint): bigint | string => (o.transformLongAsString ? v.toString() : v);
  const item: InfoMap = {
    ...(fields as InfoMap),
    specialId: long(r.specialId),
    followId: long(infoInteger(map.follow) ?? -9223372036854775808n),
    originalSize: long(infoInteger(map.ORIGINALSIZE) ?? -1n),
    uniqueId: `${r.ownerReq}.${r.requester}.${r.requested}.${r.specialId}`,
    hostId: o.hostId,
  };
  if (o.intervalIncluded) item[o.intervalKey] = { from: o.from === undefined ? '' : formatIsoLocal(o.from), to: formatIsoLocal(o.to), index: o.hostId.toLowerCase() };
  return stringifyInfoMap(item);
}

const records: TransferRecord[] = [
  transferRecord(7165003344123456789n),
  transferRecord(-9223372036854775807n, {
    transferInfo: 'before {"ORIGINALSIZE":"1048576","follow":-1234567890123456789} after {"x":[1,2]}',
    fileInfo: 'quote " backslash \\ newline \n tab \t unicode é \u0001 {"follow":5}',
    filename: '/in/ü "odd".bin', originalName: 'a\u2028b', idRule: 'règle', requested: 'host"b', requester: 'host\\a',
    globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK, step: 3, rank: 12, blockSize: 1 << 20,
    updatedInfo: UpdatedInfo.INERROR, stepStatus: ErrorCode.TransferError, infoStatus: ErrorCode.ConnectionImpossible, retrieveMode: false,
  }),
  transferRecord(1n, { transferInfo: 'no map at all', updatedInfo: 99 as UpdatedInfo, globalStep: 42 as TaskStep }),
  transferRecord(2n, { transferInfo: '{"follow":"77"}' }),
];

const variants: PayloadOptions[] = [
  { hostId: 'hostA', transformLongAsString: false, intervalIncluded: true, from: undefined, to: new Date(2026, 10, 27, 12, 0, 0, 5), intervalKey: 'waarpMonitor' },
  { hostId: 'hostA', transformLongAsString: true, intervalIncluded: true, from: new Date(2026, 10, 27, 11, 59), to: new Date(2026, 10, 27, 12), intervalKey: 'svcMonitor' },
  { hostId: 'h"x', transformLongAsString: true, intervalIncluded: false, from: undefined, to: new Date(0), intervalKey: 'waarpMonitor' },
];

describe('push monitoring item text', () => {
  it('is byte for byte the JSON of the original keys, for odd strings, 64-bit values and every option', () => {
    for (const o of variants) {
      for (const r of records) {
        const item = pushItem(r, o);
        expect(item.json).toBe(expected(r, o));
        expect(item.uniqueId).toBe(`${r.ownerReq}.${r.requester}.${r.requested}.${r.specialId}`);
        expect(() => JSON.parse(item.json) as unknown).not.toThrow();
      }
    }
  });

  it('puts the items in {"results":[...]}', () => {
    const items = records.slice(0, 2).map((r) => pushItem(r, variants[0]!));
    const body = (list: typeof items): string => Buffer.concat(pushBodyChunks(list)).toString('utf8');
    expect(body(items)).toBe(`{"results":[${expected(records[0]!, variants[0]!)},${expected(records[1]!, variants[0]!)}]}`);
    expect(body([])).toBe('{"results":[]}');
    // A big run is cut into chunks of about 32 KiB that join into the same body.
    const many = Array.from({ length: 200 }, (_, k) => items[k % items.length]!);
    const chunks = pushBodyChunks(many);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(48 * 1024);
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toEqual({ results: many.map((i) => JSON.parse(i.json)) });
  });
});
