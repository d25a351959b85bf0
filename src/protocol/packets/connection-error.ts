import { PacketType } from '../constants.js';
import { fromUtf8, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** ConnectionError (type 6, packets §7): a connection-level problem or an unknown channel id. */
export interface ConnectionErrorPacket {
  kind: 'connectionError';
  message: string;
  /** Usually the unknown local id in decimal, or empty. */
  middle: string;
}

/** Typical header for a frame addressed to an unknown channel (r66-protocol.md §3.4). */
export const UNKNOWN_LOCAL_CHANNEL_MESSAGE = 'Cannot get localChannel since localId is not found anymore';
/** Header when no channel can be created (shutdown). */
export const CANNOT_CREATE_CHANNEL_MESSAGE = 'Cannot connect to localChannel since cannot create it';

/** The end part is ignored, as Java does. */
export function decodeConnectionError(p: PacketParts): ConnectionErrorPacket {
  return { kind: 'connectionError', message: fromUtf8(p.header), middle: fromUtf8(p.middle) };
}

export function encodeConnectionError(c: ConnectionErrorPacket): PacketParts {
  return { type: PacketType.CONNECTERROR, header: utf8(c.message), middle: utf8(c.middle), end: Buffer.alloc(0) };
}
