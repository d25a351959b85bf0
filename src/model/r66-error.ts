/**
 * The one domain error (issue 33 item 4, decision 0049): whatever ends a transfer, an order or a
 * request to a partner carries an R66 ErrorCode (design.md §4), a message a user or a partner may
 * read, optional details and the underlying cause. One class with a code, no subclass per case:
 * what differs between failures is the code and the details, and every report derives from them in
 * one module each:
 *
 * - the wire: src/protocol/wire-error.ts (Error packet: message in the header, `code.char` in the
 *   middle; a partner's Error packet read back as an R66Error `fromPartner`);
 * - the RUNNER row of a failed transfer: src/transfer/failure-status.ts (STEPSTATUS, INFOSTATUS,
 *   UPDATEDINFO from the code), applied by the state machine;
 * - the REST answer: src/http/error-answer.ts (HTTP status and the v1 and v2 bodies);
 * - the exit code of the client commands: src/cli/exit-codes.ts (the code's ordinal, cli.md §8).
 *
 * Errors that are only about the bytes of a packet (framing, decoding) stay ProtocolError in
 * src/protocol/: they become an R66Error, with the ErrorCode they carry, where a conversation ends.
 */
import { ErrorCode, type ErrorCodeInfo } from './error-code.js';

/** Free details a caller may show (never paths outside the configured directories, never secrets). */
export type R66ErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

export interface R66ErrorOptions {
  details?: R66ErrorDetails;
  cause?: unknown;
  /**
   * The partner ended the conversation with this error (its Error or ConnectionError packet): it is
   * not sent back to it, and a restart of the partner's doing is told apart from a local one.
   */
  fromPartner?: boolean;
}

export class R66Error extends Error {
  readonly code: ErrorCodeInfo;
  readonly details: R66ErrorDetails;
  readonly fromPartner: boolean;

  constructor(code: ErrorCodeInfo, message: string, options: R66ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'R66Error';
    this.code = code;
    this.details = options.details ?? {};
    this.fromPartner = options.fromPartner ?? false;
  }

  /**
   * Any thrown value as an R66Error: itself; an error carrying an ErrorCode (`code`, or a
   * ProtocolError's `errorCode`) with that code and its message; anything else as `fallback`
   * (Internal) with the original as cause and a message that says what failed, without a stack.
   */
  static from(err: unknown, fallback: ErrorCodeInfo = ErrorCode.Internal): R66Error {
    if (err instanceof R66Error) return err;
    if (err instanceof Error) {
      const carried = err as { code?: unknown; errorCode?: unknown };
      const code = isErrorCodeInfo(carried.code) ? carried.code : isErrorCodeInfo(carried.errorCode) ? carried.errorCode : fallback;
      return new R66Error(code, err.message, { cause: err });
    }
    return new R66Error(fallback, String(err), { cause: err });
  }
}

function isErrorCodeInfo(v: unknown): v is ErrorCodeInfo {
  return typeof v === 'object' && v !== null && typeof (v as ErrorCodeInfo).char === 'string' && typeof (v as ErrorCodeInfo).ordinal === 'number';
}
