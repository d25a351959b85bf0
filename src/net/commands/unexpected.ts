import { ErrorCode } from '../../model/error-code.js';
import { errorOfPacket, PacketType, type Packet } from '../../protocol/index.js';
import { R66Error } from '../../model/r66-error.js';

/**
 * The error for a packet that does not fit the conversation: the partner's own Error packet
 * becomes the error it carries (`fromPartner`), its "Shutdown forced" notice (Valid 8 or its JSON
 * form, r66-protocol.md §9.12) an error `S` from the partner; anything else is our error `R`.
 */
export function unexpected(packet: Packet, expected: string): R66Error {
  if (packet.kind === 'error') return errorOfPacket(packet);
  if ((packet.kind === 'valid' || packet.kind === 'jsonCommand') && packet.subType === PacketType.SHUTDOWN) {
    return new R66Error(ErrorCode.Shutdown, `Shutdown forced by the partner while waiting for ${expected}`, { fromPartner: true });
  }
  return new R66Error(ErrorCode.RemoteError, `unexpected ${packet.kind} packet while waiting for ${expected}`);
}
