/**
 * `transfer` (cli.md §3.6, original entry point RequestTransfer): prints a transfer's record
 * (local database first, else the partner's), or stops, cancels or restarts it by asking the
 * transfer's requester host with the admin Valid commands of r66-protocol.md §9.9.
 */
import { getTransferInfo } from '../../client/getinfo.js';
import { ErrorCode, type ErrorCodeInfo } from '../../model/error-code.js';
import { isThroughMode } from '../../model/rule.js';
import type { TransferRecord } from '../../model/transfer.js';
import { unexpected } from '../../net/commands/unexpected.js';
import { R66Error } from '../../model/r66-error.js';
import type { ConnectionPool } from '../../net/pool.js';
import { formatTransferKey, PacketType, parseErrorCode, REQUEST_ON_TRANSFER, type TransferKey } from '../../protocol/index.js';
import { runnersFromXml } from '../../store/index.js';
import { parseArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { argsField, FORMAT_OPTIONS, formatOf, printResult, resultObject, ResultFields, statusWord, type ResultStatus } from './output.js';
import { addRecordFields } from './record-fields.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext, type ClientSession } from './session.js';
import { formatStartTime, parseDelay, parseStartTime, parseTransferId } from './transfer-args.js';
import { CANCEL_EXIT, exitCodeOf, RESTART_EXIT, STOP_EXIT, TRANSFER_EXIT } from '../exit-codes.js';


const LABEL = 'RequestTransfer';
const MIN_ARGS = 4;
type Action = 'stop' | 'cancel' | 'restart';
const ACTIONS: readonly Action[] = ['stop', 'cancel', 'restart'];

const OPTIONS = [
  { name: 'id', value: 'ID' },
  { name: 'to', value: 'HOST' },
  { name: 'from', value: 'HOST' },
  ...ACTIONS.map((name) => ({ name })),
  { name: 'start', value: 'yyyyMMddHHmmss' },
  { name: 'delay', value: '+MS|EPOCHMS' },
  { name: 'logWarn' },
  { name: 'notlogWarn' },
  ...FORMAT_OPTIONS,
];

/** The last of `names` present in `args` (the original's parser lets the last one win). */
function lastOf<T extends string>(args: readonly string[], names: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const a of args) {
    const hit = names.find((n) => a.replace(/^--?/, '').toLowerCase() === n.toLowerCase());
    if (hit !== undefined) found = hit;
  }
  return found;
}

/** Sends one admin command to `target` and returns the answer's code (r66-protocol.md §9.9). */
export async function transferControl(pool: ConnectionPool, target: string, action: Action, key: TransferKey, restartTime: string | undefined, timeoutMs: number): Promise<ErrorCodeInfo> {
  const { channel } = await pool.openChannel(target);
  try {
    const middle = restartTime === undefined ? formatTransferKey(key) : `${formatTransferKey(key)} ${restartTime}`;
    const subType = action === 'stop' ? PacketType.STOP : action === 'cancel' ? PacketType.CANCEL : PacketType.VALID;
    await channel.send({ kind: 'valid', header: REQUEST_ON_TRANSFER, middle, subType });
    const answer = await channel.receive(timeoutMs, `the answer to ${action}`);
    if (answer.kind === 'valid' && answer.subType === PacketType.REQUESTUSER) return parseErrorCode(answer.middle);
    if (answer.kind === 'jsonCommand') return parseErrorCode(answer.result);
    throw unexpected(answer, `the answer to ${action}`);
  } finally {
    channel.close();
  }
}

/** Exit code of an answer code for `action` (cli.md §3.6). */
export function actionExit(action: Action, code: ErrorCodeInfo): number {
  switch (action) {
    case 'stop':
      return code === ErrorCode.CompleteOk || code === ErrorCode.QueryAlreadyFinished ? STOP_EXIT.done : STOP_EXIT.notDone;
    case 'cancel':
      if (code === ErrorCode.CompleteOk) return CANCEL_EXIT.done;
      // TransferOk: the data are already transferred, there is nothing left to cancel.
      return code === ErrorCode.TransferOk || code === ErrorCode.QueryAlreadyFinished ? CANCEL_EXIT.alreadyFinished : CANCEL_EXIT.notDone;
    case 'restart':
      if (code === ErrorCode.PreProcessingOk || code === ErrorCode.QueryStillRunning || code === ErrorCode.Running) return RESTART_EXIT.done;
      return code === ErrorCode.CompleteOk || code === ErrorCode.QueryAlreadyFinished ? RESTART_EXIT.alreadyFinished : RESTART_EXIT.notDone;
  }
}

async function lookup(session: ClientSession, partnerId: string, key: TransferKey, thisIsRequester: boolean): Promise<TransferRecord> {
  const local = await session.store.runner.get({ ...key, ownerReq: session.config.hostId });
  if (local !== undefined) return local;
  const info = await getTransferInfo(await session.pool(), partnerId, key.specialId, thisIsRequester, session.config.limits.timeoutCon);
  const record = runnersFromXml(info.header)[0];
  if (record === undefined) throw new R66Error(ErrorCode.Internal, `the partner's answer holds no transfer record`);
  return record;
}

export async function transferCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const { io } = ctx;
  return guarded(io, 'transfer', { badSetup: TRANSFER_EXIT.badArgs, unexpected: TRANSFER_EXIT.unexpected }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    const parsed = parseArgs(args, { options: OPTIONS, maxPositionals: 0, command: 'transfer' });
    const format = formatOf(parsed);
    const idText = parsed.value('id');
    const side = lastOf(args, ['to', 'from'] as const);
    const partnerText = side === undefined ? undefined : parsed.value(side);
    if (args.length < MIN_ARGS || idText === undefined || side === undefined || !partnerText) throw new UsageError('expected -id ID and -to HOST or -from HOST');
    const id = parseTransferId(idText);
    const given = ACTIONS.filter((a) => parsed.has(a));
    if (given.length > 1) throw new UsageError(`options ${given.map((a) => `-${a}`).join(', ')} are mutually exclusive`);
    const action = given[0];
    if (parsed.has('start') && parsed.has('delay')) throw new UsageError('options -start and -delay are mutually exclusive');
    const startText = parsed.value('start');
    const delayText = parsed.value('delay');
    const restartAt = startText !== undefined ? parseStartTime(startText) : delayText !== undefined ? parseDelay(delayText, Date.now()) : undefined;

    return withSession(configFile, {}, async (session) => {
      const started = Date.now();
      const partner = await session.partner(partnerText);
      if (partner === undefined) throw new UsageError(`partner ${partnerText} is not known`);
      const ownId = session.ownIdFor(partner);
      const thisIsRequester = side === 'to';
      const key: TransferKey = thisIsRequester
        ? { specialId: id, requester: ownId, requested: partner.hostId }
        : { specialId: id, requester: partner.hostId, requested: ownId };
      const argText = argsField(configFile, args);
      const print = (status: ResultStatus, body: ResultFields): void => {
        const statusText = `Request Transfer in status: ${statusWord(status)}`;
        printResult(io, format, LABEL, statusText, resultObject(LABEL, argText, status, statusText, body));
      };
      const failure = (err: R66Error): ResultFields => new ResultFields().set('remote', partner.hostId).set('error', `${err.code.name}: ${err.message}`);

      if (action === undefined) {
        try {
          const record = await lookup(session, partner.hostId, key, thisIsRequester);
          print(0, addRecordFields(new ResultFields(), record, partner.hostId).set('delay', Date.now() - started));
          return TRANSFER_EXIT.ok;
        } catch (err) {
          if (!(err instanceof R66Error)) throw err;
          print(2, failure(err));
          return exitCodeOf(err.code);
        }
      }

      if (action === 'restart') {
        const local = await session.store.runner.get({ ...key, ownerReq: session.config.hostId });
        if (local !== undefined && isThroughMode(local.mode)) {
          print(2, new ResultFields().set('remote', partner.hostId).set('error', `transfer ${id} is in a through mode and cannot be restarted`));
          return RESTART_EXIT.throughMode;
        }
      }
      // The requester host runs (and restarts) the transfer: this host's own server with -to.
      const target = thisIsRequester ? session.config.hostId : partner.hostId;
      try {
        const restartTime = action === 'restart' && restartAt !== undefined ? formatStartTime(restartAt) : undefined;
        const code = await transferControl(await session.pool(), target, action, key, restartTime, session.config.limits.timeoutCon);
        const exit = actionExit(action, code);
        const body = new ResultFields().set('remote', partner.hostId).set('specialid', id).set('requested', key.requested).set('requester', key.requester).set('statusCode', code.char);
        if (exit === 0) print(0, body.set('delay', Date.now() - started));
        else print(2, body.set('error', `${action}: ${code.name} (${code.meaning})`));
        return exit;
      } catch (err) {
        if (!(err instanceof R66Error)) throw err;
        print(2, failure(err));
        if (action === 'restart') return err.fromPartner ? RESTART_EXIT.partnerError : RESTART_EXIT.notDone;
        return action === 'stop' ? STOP_EXIT.notDone : CANCEL_EXIT.notDone;
      }
    });
  });
}
