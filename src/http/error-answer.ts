/**
 * The domain error (src/model/r66-error.ts) as REST answers it, in one place (decision 0049): the
 * HTTP status from the code, and the v2 and v1 bodies of a refused order. An error that carries no
 * code of a refusal (Internal) is not explained to the caller: v2 rethrows it (500, logged).
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import { V2BadRequest, V2Code, V2Status } from './v2/errors.js';

/**
 * HTTP status of a refused order: from its code (404 unknown names, 403 a file or partner the
 * caller may not use, 409 a state conflict, 400 a malformed order, 503 overload, 500 internal),
 * and 404 for a transfer the caller named that is not there.
 */
export function restStatusOf(err: R66Error): number {
  return err.details.reason === 'unknownTransfer' ? 404 : httpStatusOf(err.code);
}

/** The names an order gave, for the v2 error list (rest-v2.md §8). */
export interface OrderNames {
  rule: string;
  partner: string;
}

/**
 * A v2 order's refusal (rest-v2.md §8, §10): unknown rule or partner, or a rule the partner may not
 * use, as the error list (400); an internal failure as itself; any other refusal its status with
 * `<code name>: <message>` (the message names only what the request gave, never a server path).
 */
export function v2OrderRefusal(err: unknown, names: OrderNames): Error {
  const e = R66Error.from(err);
  switch (e.details.reason) {
    case 'unknownRule': return V2BadRequest.of(V2Code.UnknownRule, names.rule);
    case 'unknownPartner': return V2BadRequest.of(V2Code.UnknownHost, names.partner);
    case 'ruleNotAllowed': return V2BadRequest.of(V2Code.RuleNotAllowed, names.partner, names.rule);
    default: {
      const status = restStatusOf(e);
      return status === 500 ? e : new V2Status(status, {}, `${e.code.name}: ${e.message}`);
    }
  }
}

/** A v2 refusal of an order on a stored transfer (delete): its status, the message as the body. */
export function v2TransferRefusal(err: R66Error): V2Status {
  return new V2Status(restStatusOf(err), {}, err.message);
}

/**
 * A v1 order's refusal (rest-v1.md §10): 403 for a file outside the rule's directories, 409 for a
 * transfer another process runs (operations/running-elsewhere.ts), else 406; the message as the detail.
 */
export function v1OrderRefusal(err: R66Error): { code: number; httpStatus?: number; detail: string } {
  if (err.code === ErrorCode.FileNotAllowed) return { code: 403, httpStatus: 403, detail: err.message };
  if (err.details.reason === 'runningElsewhere') return { code: 409, httpStatus: 409, detail: err.message };
  return { code: 406, detail: err.message };
}

/**
 * HTTP status of a refused order's code: 404 unknown transfer/partner/rule names the caller gave,
 * 403 a file or partner the caller may not use, 409 a state conflict (running, already finished,
 * illegal transition), 400 a malformed order, 503 overload, 500 anything internal.
 */
function httpStatusOf(code: ErrorCodeInfo): number {
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
