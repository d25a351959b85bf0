/**
 * The one domain error and what derives from it (issue 33 item 4, decision 0049): for a table of
 * codes, one R66Error gives the bytes of the Error packet a partner reads, the status columns of
 * its failed RUNNER row, the REST answers (status and body, v1 and v2) and the client's exit code.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeOfError } from '../../src/cli/exit-codes.js';
import { restStatusOf, v1OrderRefusal, v2OrderRefusal, v2TransferRefusal } from '../../src/http/error-answer.js';
import { V2BadRequest, V2Status } from '../../src/http/v2/errors.js';
import { ErrorCode, type ErrorCodeInfo } from '../../src/model/error-code.js';
import { failedRowStatus } from '../../src/model/failure-status.js';
import { R66Error } from '../../src/model/r66-error.js';
import { transition, type TransferState } from '../../src/model/transfer-state.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { decodePacket, encodePacket, errorOfConnectionError, errorOfPacket, errorPacketOf, ProtocolError, type ErrorPacket } from '../../src/protocol/index.js';

interface Row {
  code: ErrorCodeInfo;
  /** The Error packet's middle (the code's character) and header as a partner reads them. */
  wire: { middle: string; header: string };
  /** UPDATEDINFO of the failed row (not retried, not rescheduled). */
  updatedInfo: UpdatedInfo;
  rest: number;
  /** v1's answer code to a refused order. */
  v1: number;
  exit: number;
}

const MESSAGE = 'the reason';
/** A transfer in its data step, whose failure the state machine writes. */
const RUNNING: TransferState = {
  globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, updatedInfo: UpdatedInfo.RUNNING, rank: 7, retrieveMode: true, infoStatus: ErrorCode.Running,
};
const RANK = 42;

const TABLE: Row[] = [
  { code: ErrorCode.FileNotFound, wire: { middle: 'f', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 404, v1: 406, exit: 27 },
  { code: ErrorCode.FileNotAllowed, wire: { middle: 'a', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 403, v1: 403, exit: 32 },
  { code: ErrorCode.BadAuthent, wire: { middle: 'A', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 403, v1: 406, exit: 7 },
  { code: ErrorCode.NotKnownHost, wire: { middle: 'N', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 404, v1: 406, exit: 24 },
  { code: ErrorCode.QueryStillRunning, wire: { middle: 's', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 409, v1: 406, exit: 23 },
  { code: ErrorCode.QueryAlreadyFinished, wire: { middle: 'Q', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 409, v1: 406, exit: 22 },
  { code: ErrorCode.IncorrectCommand, wire: { middle: 'n', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 400, v1: 406, exit: 31 },
  { code: ErrorCode.ServerOverloaded, wire: { middle: 'l', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 503, v1: 406, exit: 6 },
  { code: ErrorCode.Shutdown, wire: { middle: 'S', header: MESSAGE }, updatedInfo: UpdatedInfo.INTERRUPTED, rest: 500, v1: 406, exit: 15 },
  { code: ErrorCode.StoppedTransfer, wire: { middle: 'H', header: `StoppedTransfer ${RANK}` }, updatedInfo: UpdatedInfo.INERROR, rest: 500, v1: 406, exit: 18 },
  { code: ErrorCode.CanceledTransfer, wire: { middle: 'K', header: 'CanceledTransfer 0' }, updatedInfo: UpdatedInfo.INERROR, rest: 500, v1: 406, exit: 19 },
  { code: ErrorCode.ExternalOp, wire: { middle: 'E', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 500, v1: 406, exit: 8 },
  { code: ErrorCode.Internal, wire: { middle: 'I', header: MESSAGE }, updatedInfo: UpdatedInfo.INERROR, rest: 500, v1: 406, exit: 17 },
];

/** The Error packet's parts as they go on the wire, read back from its bytes. */
function onTheWire(p: ErrorPacket): { middle: string; header: string; packet: ErrorPacket } {
  const bytes = encodePacket(p);
  const decoded = decodePacket(bytes);
  if (decoded.kind !== 'error') throw new Error(`not an Error packet: ${decoded.kind}`);
  // The middle travels as the code's one character (packets §6).
  expect(bytes.includes(Buffer.from(p.code.char, 'utf8'))).toBe(true);
  return { middle: decoded.code.char, header: decoded.message, packet: decoded };
}

describe('one domain error, every report derived from it', () => {
  for (const row of TABLE) {
    it(`${row.code.name}: wire ${row.wire.middle}, RUNNER ${UpdatedInfo[row.updatedInfo]}, REST ${row.rest}, exit ${row.exit}`, () => {
      const err = new R66Error(row.code, MESSAGE, { details: { file: 'a.txt' } });

      const wire = onTheWire(errorPacketOf(err, RANK));
      expect({ middle: wire.middle, header: wire.header }).toEqual(row.wire);
      // The partner reads it back as the same code, marked as coming from it.
      const back = errorOfPacket(wire.packet);
      expect(back.code).toBe(row.code);
      expect(back.fromPartner).toBe(true);

      expect(failedRowStatus(err.code)).toEqual({ stepStatus: row.code, infoStatus: row.code, updatedInfo: row.updatedInfo });
      // The state machine's move writes them (GLOBALLASTSTEP stays: the restart point).
      expect(transition(RUNNING, { kind: 'inError', code: err.code })).toMatchObject({
        globalStep: TaskStep.ERRORTASK, stepStatus: row.code, infoStatus: row.code, updatedInfo: row.updatedInfo,
      });

      expect(restStatusOf(err)).toBe(row.rest);
      const v2 = v2OrderRefusal(err, { rule: 'r', partner: 'p' });
      if (row.rest === 500) {
        expect(v2).toBe(err);
      } else {
        expect(v2).toBeInstanceOf(V2Status);
        expect({ status: (v2 as V2Status).status, body: (v2 as V2Status).explanation }).toEqual({ status: row.rest, body: `${row.code.name}: ${MESSAGE}` });
      }
      expect(v1OrderRefusal(err)).toMatchObject({ code: row.v1, detail: MESSAGE });

      expect(exitCodeOfError(err)).toBe(row.exit);
      expect(exitCodeOfError(back)).toBe(row.exit);
    });
  }

  it('the RUNNER row of a retried or rescheduled failure goes back to TOSUBMIT; a shutdown before any session is in error', () => {
    expect(failedRowStatus(ErrorCode.Disconnection, { retried: true })).toEqual({ stepStatus: ErrorCode.Disconnection, infoStatus: ErrorCode.Disconnection, updatedInfo: UpdatedInfo.TOSUBMIT });
    expect(failedRowStatus(ErrorCode.ExternalOp, { rescheduled: true })).toEqual({ stepStatus: ErrorCode.Warning, infoStatus: ErrorCode.ExternalOp, updatedInfo: UpdatedInfo.TOSUBMIT });
    expect(failedRowStatus(ErrorCode.Shutdown, { beforeSession: true }).updatedInfo).toBe(UpdatedInfo.INERROR);
  });

  it('an order naming an unknown rule, partner or a rule not allowed answers v2 with its error list; an unknown transfer 404', () => {
    const names = { rule: 'tosend', partner: 'hostz' };
    const list = (reason: string) => (v2OrderRefusal(new R66Error(ErrorCode.NotKnownHost, 'x', { details: { reason } }), names) as V2BadRequest).items;
    expect(list('unknownRule')).toEqual([{ code: 10, args: ['tosend'] }]);
    expect(list('unknownPartner')).toEqual([{ code: 11, args: ['hostz'] }]);
    expect(list('ruleNotAllowed')).toEqual([{ code: 12, args: ['hostz', 'tosend'] }]);
    const unknown = v2TransferRefusal(new R66Error(ErrorCode.Internal, 'transfer 12 with hostb is not in the database', { details: { reason: 'unknownTransfer' } }));
    expect({ status: unknown.status, body: unknown.explanation }).toEqual({ status: 404, body: 'transfer 12 with hostb is not in the database' });
  });

  it('anything thrown reads as the domain error: a protocol error with its code, a ConnectionError, a bug as Internal', () => {
    expect(R66Error.from(new ProtocolError('bad packet', ErrorCode.RemoteError)).code).toBe(ErrorCode.RemoteError);
    const bug = R66Error.from(new TypeError('x is undefined'));
    expect({ code: bug.code, message: bug.message, cause: bug.cause instanceof TypeError }).toEqual({ code: ErrorCode.Internal, message: 'x is undefined', cause: true });
    expect(exitCodeOfError('a string')).toBe(17);
    const onChannel = errorOfConnectionError({ kind: 'connectionError', message: 'gone', middle: 'D' }, true);
    expect({ code: onChannel.code, fromPartner: onChannel.fromPartner }).toEqual({ code: ErrorCode.Disconnection, fromPartner: true });
    expect(errorOfConnectionError({ kind: 'connectionError', message: 'gone', middle: '' }, true).code).toBe(ErrorCode.ConnectionImpossible);
  });
});
