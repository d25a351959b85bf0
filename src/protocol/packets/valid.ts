import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, readByte, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/**
 * Valid (type 4, packets §5): a generic two-string packet whose meaning is its sub-type (a type
 * code). See valid-commands.ts for the typed sub-commands.
 */
export interface ValidPacket {
  kind: 'valid';
  header: string;
  /** May be empty (Java sends a null string as empty). */
  middle: string;
  /** Sub-type (`typeValid`), a code from PacketType. */
  subType: number;
}

/** Java reads one end byte unconditionally; extra end bytes are ignored. */
export function decodeValid(p: PacketParts): ValidPacket {
  const subType = readByte(p.end, 0, 'Valid sub-type');
  return { kind: 'valid', header: fromUtf8(p.header), middle: fromUtf8(p.middle), subType };
}

export function encodeValid(v: ValidPacket): PacketParts {
  return { type: PacketType.VALID, header: utf8(v.header), middle: utf8(v.middle), end: byteBytes(v.subType) };
}
