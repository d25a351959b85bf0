/**
 * The R66 protocol codec: bytes <-> packets, pure (no I/O). See docs/protocol.md.
 *
 * Receive path: `FrameSplitter.push(chunk)` -> `NetworkFrame[]` -> `decodeFramePacket(frame)` ->
 * `Packet` (discriminated by `kind`). Send path: `encodeFrame(dstId, srcId, packet)`, or for Data
 * blocks `encodeDataPacketHeader(into, offset, ...)` in front of the block bytes.
 * Every decoder throws only `ProtocolError` (with the ErrorCode to answer and a `fatal` flag).
 */
export * from './constants.js';
export * from './errors.js';
export * from './frame.js';
export * from './envelope.js';
export * from './packet.js';
export * from './json.js';
export * from './json-commands.js';
export * from './packets/authent.js';
export * from './packets/startup.js';
export * from './packets/data.js';
export * from './packets/valid.js';
export * from './packets/error.js';
export * from './packets/connection-error.js';
export * from './wire-error.js';
export * from './packets/request.js';
export * from './packets/shutdown.js';
export * from './packets/test-packet.js';
export * from './packets/end-transfer.js';
export * from './packets/information.js';
export * from './packets/end-request.js';
export * from './packets/keep-alive.js';
export * from './packets/business-request.js';
export * from './packets/noop.js';
export * from './packets/block-request.js';
export * from './packets/json-command.js';
export * from './version.js';
export * from './authent.js';
export * from './digest.js';
export * from '../model/error-code.js';
export * from '../model/digest.js';
export * from './valid-commands.js';
export * from './runner-xml.js';
