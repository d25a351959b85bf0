import { ErrorCode } from '../../model/error-code.js';
import { PacketType, type Packet } from '../../protocol/index.js';
import { R66Error, RemoteError } from '../errors.js';

/**
 * The error for a packet that does not fit the conversation: the partner's own Error packet
 * becomes a RemoteError with its code, its "Shutdown forced" notice (Valid 8 or its JSON form,
 * r66-protocol.md §9.12) a RemoteError `S`; anything else is our error `R`.
 */
export function unexpected(packet: Packet, expected: string): R66Error {
  if (packet.kind === 'error') return new RemoteError(packet.message, packet.code);
  if ((packet.kind === 'valid' || packet.kind === 'jsonCommand') && packet.subType === PacketType.SHUTDOWN) {
    return new RemoteError(`Shutdown forced by the partner while waiting for ${expected}`, ErrorCode.Shutdown);
  }
  return new R66Error(`unexpected ${packet.kind} packet while waiting for ${expected}`, ErrorCode.RemoteError);
}
