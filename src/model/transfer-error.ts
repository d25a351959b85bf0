/**
 * The one typed error of a transfer order or a transfer (issue 20 item 5): an R66 ErrorCode, a
 * message a user may read, optional details and the underlying cause. Everything that reports the
 * failure derives from it:
 *
 * - the wire: `code.char` (Error packet middle, EndRequest ordinal `code.ordinal`);
 * - the row: INFOSTATUS/STEPSTATUS = `code` (src/transfer/state.ts writes it);
 * - the REST answer: {@link httpStatusOf} and {@link TransferError.toJson};
 * - the exit code of the client commands: the code's ordinal (src/cli/exit-codes.ts builds its
 *   table on {@link TransferError.code}).
 *
 * Other errors already carrying an ErrorCode (net's R66Error, fs's PathNotAllowedError) are read
 * through {@link TransferError.from}, so a caller never needs to know which module threw.
 */
import { ErrorCode, type ErrorCodeInfo } from './error-code.js';

/** Free details a caller may show (never paths outside the configured directories, never secrets). */
export type TransferErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

export class TransferError extends Error {
  readonly code: ErrorCodeInfo;
  readonly details: TransferErrorDetails;

  constructor(code: ErrorCodeInfo, message: string, options: { details?: TransferErrorDetails; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransferError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /** HTTP status of a REST answer refusing the order (see httpStatusOf). */
  get httpStatus(): number {
    return httpStatusOf(this.code);
  }

  /** The body part REST answers carry: the code's character and name, and the message. */
  toJson(): { code: string; codeName: string; message: string; details: TransferErrorDetails } {
    return { code: this.code.char, codeName: this.code.name, message: this.message, details: this.details };
  }

  /**
   * Any thrown value as a TransferError: itself; an error carrying an ErrorCode (`code` with
   * `char` and `ordinal`) with its code and message; anything else as `fallback` (Internal) with
   * the original as cause and a message that says what failed without a stack.
   */
  static from(err: unknown, fallback: ErrorCodeInfo = ErrorCode.Internal): TransferError {
    if (err instanceof TransferError) return err;
    if (err instanceof Error) {
      const code = (err as { code?: unknown }).code;
      if (isErrorCodeInfo(code)) return new TransferError(code, err.message, { cause: err });
      return new TransferError(fallback, err.message, { cause: err });
    }
    return new TransferError(fallback, String(err), { cause: err });
  }
}

function isErrorCodeInfo(v: unknown): v is ErrorCodeInfo {
  return typeof v === 'object' && v !== null && typeof (v as ErrorCodeInfo).char === 'string' && typeof (v as ErrorCodeInfo).ordinal === 'number';
}

/**
 * HTTP status for a refused order: 404 unknown transfer/partner/rule names the caller gave,
 * 403 a file or partner the caller may not use, 409 a state conflict (running, already finished,
 * illegal transition), 400 a malformed order, 503 overload, 500 anything internal.
 */
export function httpStatusOf(code: ErrorCodeInfo): number {
  switch (code) {
    case ErrorCode.FileNotAllowed:
    case ErrorCode.BadAuthent:
      return 403;
    case ErrorCode.FileNotFound:
    case ErrorCode.NotKnownHost:
    case ErrorCode.QueryRemotelyUnknown:
      return 404;
    case ErrorCode.QueryAlreadyFinished:
    case ErrorCode.QueryStillRunning:
    case ErrorCode.Running:
      return 409;
    case ErrorCode.IncorrectCommand:
    case ErrorCode.LoopSelfRequestedHost:
    case ErrorCode.SizeNotAllowed:
    case ErrorCode.Unimplemented:
    case ErrorCode.CommandNotFound:
      return 400;
    case ErrorCode.ServerOverloaded:
      return 503;
    default:
      return 500;
  }
}
