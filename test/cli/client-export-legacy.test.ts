// config-export towards a partner that does not take JSON orders (history.md §5.2, r66-protocol.md
// §4 "useJson"): the legacy Valid 11 with the hosts/rules flags, its answer naming no file.
import { describe, expect, it } from 'vitest';
import { exportConfiguration } from '../../src/client/admin-exports.js';
import { ErrorCode } from '../../src/model/error-code.js';
import type { ConnectionPool } from '../../src/net/pool.js';
import { PacketType, type Packet } from '../../src/protocol/index.js';

/** A pool whose one channel records what is sent and answers with `reply(request)`. */
function stubPool(usesJson: boolean, reply: (request: Packet) => Packet): { pool: ConnectionPool; sent: Packet[] } {
  const sent: Packet[] = [];
  const channel = {
    send: async (p: Packet) => { sent.push(p); },
    receive: async () => reply(sent[sent.length - 1]!),
    close: () => undefined,
  };
  const partner = { hostId: 'old', version: '2.4.10', capabilities: { usesJson } };
  return { pool: { openChannel: async () => ({ channel, partner }) } as unknown as ConnectionPool, sent };
}

const order = { hosts: true, rules: false, business: true, aliases: false, roles: false };

describe('config-export order form', () => {
  it('sends Valid("true", "false", 11) to a partner without JSON and reads its legacy answer', async () => {
    const { pool, sent } = stubPool(false, (req) => ({
      kind: 'valid', header: `${(req as { header: string }).header} ${(req as { middle: string }).middle}`, middle: 'O', subType: PacketType.REQUESTUSER,
    }));
    const answer = await exportConfiguration(pool, 'old', order);
    expect(sent).toEqual([{ kind: 'valid', header: 'true', middle: 'false', subType: PacketType.CONFEXPORT }]);
    expect(answer).toEqual({ hosts: '', rules: null, business: null, aliases: null, roles: null, legacy: true });
  });

  it('a legacy T answer (nothing written) is a TransferError failure', async () => {
    const { pool } = stubPool(false, () => ({ kind: 'valid', header: 'true false', middle: 'T', subType: PacketType.REQUESTUSER }));
    await expect(exportConfiguration(pool, 'old', order)).rejects.toMatchObject({ code: ErrorCode.TransferError });
  });

  it('sends the JSON ConfigExportJsonPacket to a partner using JSON', async () => {
    const { pool, sent } = stubPool(true, () => ({ kind: 'valid', header: '', middle: 'O', subType: PacketType.REQUESTUSER }));
    await expect(exportConfiguration(pool, 'new', order)).rejects.toThrow();
    expect(sent[0]).toMatchObject({ kind: 'jsonCommand', subType: PacketType.CONFEXPORT, command: { jsonClass: 'ConfigExportJsonPacket', host: true, rule: false, business: true } });
  });
});
