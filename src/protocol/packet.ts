import { ENVELOPE_HEADER_SIZE, PacketType, SUBTYPE_ONLY_CODES } from './constants.js';
import { decodeEnvelope, encodeEnvelope, encodeEnvelopeFrame, type PacketParts } from './envelope.js';
import { ProtocolError, packetError } from './errors.js';
import type { NetworkFrame } from './frame.js';
import { decodeAuthent, encodeAuthent, type AuthentPacket } from './packets/authent.js';
import { decodeBlockRequest, encodeBlockRequest, type BlockRequestPacket } from './packets/block-request.js';
import { decodeBusinessRequest, encodeBusinessRequest, type BusinessRequestPacket } from './packets/business-request.js';
import { decodeConnectionError, encodeConnectionError, type ConnectionErrorPacket } from './packets/connection-error.js';
import { decodeData, encodeData, type DataPacket } from './packets/data.js';
import { decodeEndRequest, encodeEndRequest, type EndRequestPacket } from './packets/end-request.js';
import { decodeEndTransfer, encodeEndTransfer, type EndTransferPacket } from './packets/end-transfer.js';
import { decodeError, encodeError, type ErrorPacket } from './packets/error.js';
import { decodeInformation, encodeInformation, type InformationPacket } from './packets/information.js';
import { decodeJsonCommand, encodeJsonCommand, type JsonCommandPacket } from './packets/json-command.js';
import { decodeKeepAlive, encodeKeepAlive, type KeepAlivePacket } from './packets/keep-alive.js';
import { decodeNoOp, encodeNoOp, type NoOpPacket } from './packets/noop.js';
import { decodeRequest, encodeRequest, type RequestPacket } from './packets/request.js';
import { decodeShutdown, encodeShutdown, type ShutdownPacket } from './packets/shutdown.js';
import { decodeStartup, encodeStartup, type StartupPacket } from './packets/startup.js';
import { decodeTest, encodeTest, type TestPacket } from './packets/test-packet.js';
import { decodeValid, encodeValid, type ValidPacket } from './packets/valid.js';

/** Every top-level packet, discriminated by `kind`. */
export type Packet =
  | AuthentPacket
  | StartupPacket
  | DataPacket
  | ValidPacket
  | ErrorPacket
  | ConnectionErrorPacket
  | RequestPacket
  | ShutdownPacket
  | TestPacket
  | EndTransferPacket
  | InformationPacket
  | EndRequestPacket
  | KeepAlivePacket
  | BusinessRequestPacket
  | NoOpPacket
  | BlockRequestPacket
  | JsonCommandPacket;

/** The `kind` of a packet. */
export type PacketKind = Packet['kind'];

const DECODERS: Readonly<Record<number, (p: PacketParts) => Packet>> = {
  [PacketType.AUTHENT]: decodeAuthent,
  [PacketType.STARTUP]: decodeStartup,
  [PacketType.DATA]: decodeData,
  [PacketType.VALID]: decodeValid,
  [PacketType.ERROR]: decodeError,
  [PacketType.CONNECTERROR]: decodeConnectionError,
  [PacketType.REQUEST]: decodeRequest,
  [PacketType.SHUTDOWN]: decodeShutdown,
  [PacketType.TEST]: decodeTest,
  [PacketType.ENDTRANSFER]: decodeEndTransfer,
  [PacketType.INFORMATION]: decodeInformation,
  [PacketType.ENDREQUEST]: decodeEndRequest,
  [PacketType.KEEPALIVE]: decodeKeepAlive,
  [PacketType.BUSINESSREQUEST]: decodeBusinessRequest,
  [PacketType.NOOP]: decodeNoOp,
  [PacketType.BLOCKREQUEST]: decodeBlockRequest,
  [PacketType.JSONREQUEST]: decodeJsonCommand,
};

/** The parts of a packet (header, middle, end and type), ready for the envelope. */
export function packetParts(packet: Packet): PacketParts {
  switch (packet.kind) {
    case 'authent': return encodeAuthent(packet);
    case 'startup': return encodeStartup(packet);
    case 'data': return encodeData(packet);
    case 'valid': return encodeValid(packet);
    case 'error': return encodeError(packet);
    case 'connectionError': return encodeConnectionError(packet);
    case 'request': return encodeRequest(packet);
    case 'shutdown': return encodeShutdown(packet);
    case 'test': return encodeTest(packet);
    case 'endTransfer': return encodeEndTransfer(packet);
    case 'information': return encodeInformation(packet);
    case 'endRequest': return encodeEndRequest(packet);
    case 'keepAlive': return encodeKeepAlive(packet);
    case 'businessRequest': return encodeBusinessRequest(packet);
    case 'noOp': return encodeNoOp(packet);
    case 'blockRequest': return encodeBlockRequest(packet);
    case 'jsonCommand': return encodeJsonCommand(packet);
  }
}

/** Decodes a packet from its parts; rejects the types a Java host rejects. */
export function decodeParts(parts: PacketParts): Packet {
  const decoder = DECODERS[parts.type];
  if (decoder) return decoder(parts);
  if (SUBTYPE_ONLY_CODES.has(parts.type)) throw packetError(`Unimplemented Packet Type received: ${parts.type}`);
  throw packetError(`Unvalid Packet Type received: ${parts.type}`);
}

/**
 * Decodes local packet bytes (envelope + parts). Parts of the result that are byte arrays (Data
 * block and digest, keys) are views into `localPacket`, not copies.
 * Throws only ProtocolError.
 */
export function decodePacket(localPacket: Buffer): Packet {
  try {
    return decodeParts(decodeEnvelope(localPacket));
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    // A decoder bug must still surface as the protocol's error, never as an unexpected exception.
    throw packetError(`malformed packet: ${(err as Error).message}`);
  }
}

/** Encodes a packet to local packet bytes (envelope + parts). */
export function encodePacket(packet: Packet): Buffer {
  return encodeEnvelope(packetParts(packet));
}

/** Encodes a packet directly into a whole network frame (single allocation). */
export function encodeFrame(dstId: number, srcId: number, packet: Packet): Buffer {
  return encodeEnvelopeFrame(dstId, srcId, packetParts(packet));
}

/**
 * Decodes the packet of a frame, checking that the frame code equals the local type byte (a Java
 * encoder always writes them equal). Throws only ProtocolError.
 */
export function decodeFramePacket(frame: NetworkFrame): Packet {
  const packet = decodePacket(frame.localPacket);
  const type = frame.localPacket[ENVELOPE_HEADER_SIZE - 1];
  if (type !== frame.code) throw packetError(`frame code ${frame.code} differs from packet type ${String(type)}`);
  return packet;
}
