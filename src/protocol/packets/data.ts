import { ENVELOPE_HEADER_SIZE, FRAME_HEADER_SIZE, PacketType } from '../constants.js';
import { int32Bytes, readInt32, requireMinLength } from '../bytes.js';
import { writeEnvelopeHeader, type PacketParts } from '../envelope.js';
import { writeFrameHeader } from '../frame.js';

/** Data (type 3, packets §4): one block of the file, from the sender to the receiver. */
export interface DataPacket {
  kind: 'data';
  /** 0-based block number. */
  rank: number;
  /** Block bytes (a zstd frame when block compression is on). Decoded: a view, not a copy. */
  data: Buffer;
  /** Raw block digest in MD5 modes, else empty. Decoded: a view. */
  digest: Buffer;
}

/** Bytes in front of the block on the wire: frame header, envelope header, int32 rank. */
export const DATA_FRAME_PREFIX_SIZE = FRAME_HEADER_SIZE + ENVELOPE_HEADER_SIZE + 4;

/** Java requires a 4-byte rank and a non-empty middle (no empty Data packet). */
export function decodeData(p: PacketParts): DataPacket {
  const rank = readInt32(p.header, 0, 'Data rank');
  requireMinLength(p.middle, 1, 'Data block');
  return { kind: 'data', rank, data: p.middle, digest: p.end };
}

export function encodeData(d: DataPacket): PacketParts {
  if (d.data.length === 0) throw new RangeError('a Data packet must carry at least one byte (Java rejects empty blocks)');
  return { type: PacketType.DATA, header: int32Bytes(d.rank), middle: d.data, end: d.digest };
}

/**
 * Zero-copy send path (design.md §5): writes the DATA_FRAME_PREFIX_SIZE bytes of frame header,
 * envelope header and rank at `offset` of `into`, for a block of `dataLength` bytes that the caller
 * has placed (or will place) at `offset + DATA_FRAME_PREFIX_SIZE`, followed by `digestLength`
 * digest bytes. The frame is then `into.subarray(offset, offset + DATA_FRAME_PREFIX_SIZE +
 * dataLength + digestLength)`. Returns the total frame size.
 */
export function encodeDataPacketHeader(
  into: Buffer,
  offset: number,
  dstId: number,
  srcId: number,
  rank: number,
  dataLength: number,
  digestLength = 0,
): number {
  if (dataLength <= 0) throw new RangeError('a Data packet must carry at least one byte (Java rejects empty blocks)');
  if (offset < 0 || offset + DATA_FRAME_PREFIX_SIZE > into.length) throw new RangeError('no room for the Data frame header');
  const local = ENVELOPE_HEADER_SIZE + 4 + dataLength + digestLength;
  writeFrameHeader(into, offset, dstId, srcId, PacketType.DATA, local);
  writeEnvelopeHeader(into, offset + FRAME_HEADER_SIZE, PacketType.DATA, 4, dataLength, digestLength);
  into.writeInt32BE(rank | 0, offset + FRAME_HEADER_SIZE + ENVELOPE_HEADER_SIZE);
  return FRAME_HEADER_SIZE + local;
}
