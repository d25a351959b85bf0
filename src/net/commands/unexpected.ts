import { ErrorCode } from '../../model/error-code.js';
import type { Packet } from '../../protocol/index.js';
import { R66Error, RemoteError } from '../errors.js';

/**
 * The error for a packet that does not fit the conversation: the partner's own Error packet
 * becomes a RemoteError with its code; anything else is our error `R`.
 */
export function unexpected(packet: Packet, expected: string): R66Error {
  if (packet.kind === 'error') return new RemoteError(packet.message, packet.code);
  return new R66Error(`unexpected ${packet.kind} packet while waiting for ${expected}`, ErrorCode.RemoteError);
}
