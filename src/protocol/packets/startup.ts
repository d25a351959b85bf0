import { PacketType } from '../constants.js';
import { int32Bytes, readByte, readInt32 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/**
 * Startup (type 2, packets §3): defined but never sent by 3.x hosts. Decoded only so that the
 * receiver can log and ignore it, as Java does; do not send it.
 */
export interface StartupPacket {
  kind: 'startup';
  localId: number;
  fromSsl: boolean;
}

export function decodeStartup(p: PacketParts): StartupPacket {
  return { kind: 'startup', localId: readInt32(p.header, 0, 'Startup localId'), fromSsl: readByte(p.middle, 0, 'Startup fromSsl') !== 0 };
}

export function encodeStartup(s: StartupPacket): PacketParts {
  return { type: PacketType.STARTUP, header: int32Bytes(s.localId), middle: Buffer.of(s.fromSsl ? 1 : 0), end: Buffer.alloc(0) };
}
