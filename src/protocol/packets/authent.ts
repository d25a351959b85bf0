import { PacketType } from '../constants.js';
import { fromUtf8, requireMinLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** Authent (type 1, packets §2): mutual authentication, request (way 0) and answer (way 1). */
export interface AuthentPacket {
  kind: 'authent';
  /** Host id of the sender (its SSL host id on TLS). */
  hostId: string;
  /** 16-byte wire key (see deriveWireKey). */
  key: Buffer;
  /** Request: the sender's channel id; answer: the request's value echoed (Java does). */
  localId: number;
  /** 0 = ask, 1 = answer. */
  way: number;
  /** Version string `3.1.0.{json}`, or null when the end part has none (Java then assumes 2.4.12). */
  version: string | null;
}

/** Java requires H >= 1, M >= 1, E >= 5. */
export function decodeAuthent(p: PacketParts): AuthentPacket {
  requireMinLength(p.header, 1, 'Authent header');
  requireMinLength(p.middle, 1, 'Authent key');
  requireMinLength(p.end, 5, 'Authent end');
  return {
    kind: 'authent',
    hostId: fromUtf8(p.header),
    key: p.middle,
    localId: p.end.readInt32BE(0),
    way: p.end[4] as number,
    version: p.end.length === 5 ? null : fromUtf8(p.end.subarray(5)),
  };
}

export function encodeAuthent(a: AuthentPacket): PacketParts {
  const version = a.version === null ? Buffer.alloc(0) : utf8(a.version);
  const end = Buffer.allocUnsafe(5 + version.length);
  end.writeInt32BE(a.localId | 0, 0);
  end[4] = a.way & 0xff;
  version.copy(end, 5);
  return { type: PacketType.AUTHENT, header: utf8(a.hostId), middle: Buffer.from(a.key), end };
}
