import { describe, expect, it } from 'vitest';
import { formatTransferInfo, parseTransferInfo, readInfoMap, updateInfoMap } from '../../src/tasks/transfer-info.js';

describe('transfer information map (tasks.md §10)', () => {
  it('merges every {...} group and keeps 64-bit ids exact', () => {
    const p = parseTransferInfo('lot42 {"follow":-922337203685477123,"ORIGINALSIZE":1024} more {"a":true}');
    expect(p.text).toBe('lot42 more');
    expect(p.map).toEqual({ follow: -922337203685477123n, ORIGINALSIZE: 1024, a: true });
    expect(formatTransferInfo(p)).toBe('lot42 more {"follow":-922337203685477123,"ORIGINALSIZE":1024,"a":true}');
  });
  it('leaves groups that are not JSON in the text', () => {
    expect(parseTransferInfo('a {not json} b')).toEqual({ text: 'a {not json} b', map: {} });
  });
  it('updates keys keeping the text', () => {
    expect(updateInfoMap('txt {"x":1}', { y: 2 })).toBe('txt {"x":1,"y":2}');
    expect(readInfoMap(updateInfoMap('', { follow: 9223372036854775807n })).follow).toBe(9223372036854775807n);
  });
});
