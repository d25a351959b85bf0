import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, requireLength, requireMinLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** Information (type 18, packets §12): file listing/existence, or a transfer check by id. */
export interface InformationPacket {
  kind: 'information';
  /** Rule id (kinds 0-3), or the specialId in decimal (kind -1). */
  ruleOrId: string;
  /** InformationKind: 0..3, or -1 for REQUEST_CHECK (sent as 0xFF). */
  request: number;
  /** File name or pattern (kinds 0-3); `1`/`0` for REQUEST_CHECK. */
  filename: string;
}

/** Java requires H >= 1 and M == 1. The kind byte is signed. */
export function decodeInformation(p: PacketParts): InformationPacket {
  requireMinLength(p.header, 1, 'Information header');
  requireLength(p.middle, 1, 'Information request kind');
  return { kind: 'information', ruleOrId: fromUtf8(p.header), request: p.middle.readInt8(0), filename: fromUtf8(p.end) };
}

export function encodeInformation(i: InformationPacket): PacketParts {
  return { type: PacketType.INFORMATION, header: utf8(i.ruleOrId), middle: byteBytes(i.request), end: utf8(i.filename) };
}
