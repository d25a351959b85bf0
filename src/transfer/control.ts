/**
 * Transfer orders this host sends to another (r66-protocol.md §9.9): the stop/cancel command a
 * client sends, and the restart a requested-only host forwards to the requester. The orders a
 * partner sends here are answered by the order service (src/operations/partner-orders.ts).
 */
import { unexpected } from '../net/commands/unexpected.js';
import type { ConnectionPool } from '../net/pool.js';
import { encodeValidCommand, newJsonCommand, parseErrorCode, PacketType } from '../protocol/index.js';
import type { ControlResult, TransferRef } from './types.js';

/** The order to send to a host (legacy or JSON), for clients that ask a remote host. */
export function stopOrCancelCommand(kind: 'stop' | 'cancel', ref: TransferRef): ReturnType<typeof newJsonCommand<'StopOrCancelJsonPacket'>> {
  return newJsonCommand('StopOrCancelJsonPacket', { requester: ref.requester, requested: ref.requested, specialid: ref.specialId, requestUserPacket: kind === 'stop' ? PacketType.STOP : PacketType.CANCEL });
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Asks the requester host of a transfer to restart it (a host that is only the requested side
 * forwards the order, r66-protocol.md §9.9) and relays its answer code.
 */
export async function forwardRestart(pool: ConnectionPool, ref: TransferRef, at: Date | undefined): Promise<ControlResult> {
  const { channel, partner } = await pool.openChannel(ref.requester);
  try {
    if (partner.capabilities.usesJson) {
      const command = newJsonCommand('RestartTransferJsonPacket', { requester: ref.requester, requested: ref.requested, specialid: ref.specialId, restarttime: at ? at.getTime() : null, requestUserPacket: PacketType.VALID });
      await channel.send({ kind: 'jsonCommand', command, result: '', subType: PacketType.VALID });
    } else {
      const time = at ? `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}` : null;
      await channel.send(encodeValidCommand({ cmd: 'restart', requester: ref.requester, requested: ref.requested, specialId: ref.specialId, restartTime: time }));
    }
    const answer = await channel.receive(undefined, 'the restart answer');
    if (answer.kind === 'valid') return { code: parseErrorCode(answer.middle), message: `answer of ${ref.requester}` };
    if (answer.kind === 'jsonCommand') return { code: parseErrorCode(answer.result), message: `answer of ${ref.requester}` };
    throw unexpected(answer, 'the restart answer');
  } finally {
    channel.close();
  }
}
