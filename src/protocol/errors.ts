import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';

/**
 * The only exception the protocol decoders throw. It carries the ErrorCode the connection should
 * answer with, and whether the whole connection is unusable (`fatal`: a framing error, after which
 * the byte stream cannot be resynchronised, so the Java behaviour is ConnectionError + TCP close)
 * or only the local packet was bad (the local channel ends with an Error packet, usually `R`).
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly errorCode: ErrorCodeInfo;
  readonly fatal: boolean;

  constructor(message: string, errorCode: ErrorCodeInfo = ErrorCode.RemoteError, fatal = false) {
    super(message);
    this.errorCode = errorCode;
    this.fatal = fatal;
  }
}

/** A framing error: the connection must be dropped (spec r66-protocol.md §2, §3.4). */
export function frameError(message: string): ProtocolError {
  return new ProtocolError(message, ErrorCode.ConnectionImpossible, true);
}

/** A malformed local packet: a Java host rejects it with an Error `R` (packets §14.1). */
export function packetError(message: string): ProtocolError {
  return new ProtocolError(message, ErrorCode.RemoteError, false);
}
