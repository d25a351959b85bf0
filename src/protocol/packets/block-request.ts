import { PacketType } from '../constants.js';
import { requireMinLength } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** BlockRequest (type 24, packets §13.5): block or unblock new requests. */
export interface BlockRequestPacket {
  kind: 'blockRequest';
  /** True = block new requests (flag byte 1); anything else unblocks. */
  block: boolean;
  /** 16-byte admin wire key. */
  key: Buffer;
}

/** Java requires H >= 2 (flag byte plus key). */
export function decodeBlockRequest(p: PacketParts): BlockRequestPacket {
  requireMinLength(p.header, 2, 'BlockRequest header');
  return { kind: 'blockRequest', block: p.header[0] === 1, key: p.header.subarray(1) };
}

export function encodeBlockRequest(b: BlockRequestPacket): PacketParts {
  return { type: PacketType.BLOCKREQUEST, header: Buffer.concat([Buffer.of(b.block ? 1 : 0), b.key]), middle: Buffer.alloc(0), end: Buffer.alloc(0) };
}
