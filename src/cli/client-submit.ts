/**
 * `asend` and `masend` (cli.md §3.3, §3.5): asynchronous submissions. No partner is contacted: a
 * RUNNER row with UPDATEDINFO = 3 goes into the database shared with the server, whose scheduler
 * starts it at STARTTRANS (database.md §9.1). `-id` resets an existing row for restart instead.
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import type { Host } from '../model/host.js';
import { isSendMode, withMd5, type Rule } from '../model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { R66Error } from '../net/errors.js';
import { GuidGenerator, StoreError } from '../store/index.js';
import { UsageError } from './cli-error.js';
import { expandLocalFiles, expandRemote, localSendPath, localSize, unescapeWildcards, withFollow, type LocalFile } from './client-files.js';
import { argsField, printResult, resultObject, ResultFields, statusWord, type OutputFormat, type ResultStatus } from './client-output.js';
import { addRecordFields } from './client-record-fields.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext, type ClientSession } from './client-session.js';
import { parseTransferArgs, type TransferArgs } from './client-transfer-args.js';
import { ASEND_EXIT, exitCodeOf, MASEND_EXIT } from './exit-codes.js';

/**
 * masend writes its rows this many at a time: the ids in one statement and the rows in one
 * transaction, so a running server's scheduler sees them arrive in chunks and the database's write
 * lock is taken once per chunk rather than twice per file.
 */
export const SUBMIT_BATCH = 100;

/** A submission that could not be made, with the code whose ordinal is the exit code. */
class SubmitError extends Error {
  constructor(message: string, readonly code: ErrorCodeInfo) {
    super(message);
  }
}

const guid = new GuidGenerator();

export interface Submission {
  partner: string;
  rule: Rule;
  file: string;
  /** The file's size when already known (read by the wildcard expansion). */
  size?: number;
  args: TransferArgs;
}

/** The new RUNNER row of database.md §9.1. */
export async function submittedRecord(session: ClientSession, s: Submission): Promise<TransferRecord> {
  const partner = await session.partner(s.partner);
  if (partner === undefined) throw unknownPartner(s.partner);
  return { ...(await newRecord(session, partner, s)), specialId: await session.store.nextTransferId() };
}

function unknownPartner(partnerId: string): SubmitError {
  return new SubmitError(`partner ${partnerId} is not known`, ErrorCode.NotKnownHost);
}

/** The row of {@link submittedRecord} for a known partner, without its id yet. */
async function newRecord(session: ClientSession, partner: Host, s: Submission): Promise<Omit<TransferRecord, 'specialId'>> {
  const { config } = session;
  const mode = s.args.md5 ? withMd5(s.rule.mode) : s.rule.mode;
  const sending = isSendMode(mode);
  const size = !sending ? -1 : s.size ?? await localSize(localSendPath(config.directories, s.rule, s.file));
  const followId = guid.next();
  const fileInfo = withFollow(s.args.info, followId, s.args.noFollow);
  const now = new Date();
  return {
    ownerReq: config.hostId,
    requester: session.ownIdFor(partner),
    requested: partner.hostId,
    globalStep: TaskStep.NOTASK,
    globalLastStep: TaskStep.NOTASK,
    step: -1,
    rank: 0,
    blockSize: s.args.blockSize ?? config.limits.blockSize,
    mode,
    updatedInfo: UpdatedInfo.TOSUBMIT,
    stepStatus: ErrorCode.Unknown,
    infoStatus: ErrorCode.Unknown,
    retrieveMode: sending,
    isMoved: false,
    start: s.args.start ?? now,
    stop: now,
    idRule: s.rule.idRule,
    filename: s.file,
    originalName: s.file,
    fileInfo,
    // The follow id appended to FILEINFO is also part of the technical map (database.md §4.4).
    transferInfo: fileInfo === s.args.info ? `{"ORIGINALSIZE":${size}}` : `{"ORIGINALSIZE":${size},"follow":${followId}}`,
  };
}

/** The reset of database.md §6.1 "Restart (reset)" for a resubmission. */
export function resetForResubmit(r: TransferRecord, gapRestart: number, start: Date | undefined): TransferRecord {
  if (r.updatedInfo === UpdatedInfo.RUNNING) throw new SubmitError(`transfer ${r.specialId} is running`, ErrorCode.QueryStillRunning);
  if (r.globalLastStep === TaskStep.ALLDONETASK || r.updatedInfo === UpdatedInfo.DONE) {
    throw new SubmitError(`transfer ${r.specialId} is already finished`, ErrorCode.QueryAlreadyFinished);
  }
  const step = r.globalLastStep;
  const [globalStep, code] =
    step === TaskStep.PRETASK ? [TaskStep.PRETASK, ErrorCode.InitOk]
      : step === TaskStep.TRANSFERTASK ? [TaskStep.TRANSFERTASK, ErrorCode.PreProcessingOk]
        : step === TaskStep.POSTTASK ? [TaskStep.POSTTASK, ErrorCode.TransferOk]
          : [TaskStep.NOTASK, ErrorCode.Unknown];
  // A receiver restarts a little before its rank: the last blocks may not have reached the disk.
  const rank = globalStep === TaskStep.TRANSFERTASK && !r.retrieveMode ? Math.max(0, r.rank - gapRestart) : r.rank;
  return { ...r, globalStep, globalLastStep: globalStep, rank, stepStatus: code, infoStatus: code, updatedInfo: UpdatedInfo.TOSUBMIT, start: start ?? new Date(), stop: new Date() };
}

async function resubmit(session: ClientSession, partnerId: string, id: bigint, args: TransferArgs): Promise<TransferRecord> {
  const partner = await session.partner(partnerId);
  if (partner === undefined) throw new SubmitError(`partner ${partnerId} is not known`, ErrorCode.NotKnownHost);
  const key = { specialId: id, ownerReq: session.config.hostId, requester: session.ownIdFor(partner), requested: partner.hostId };
  const row = await session.store.runner.get(key);
  if (row === undefined) throw new SubmitError(`transfer ${id} with ${partner.hostId} is not in the local database`, ErrorCode.Internal);
  const reset = resetForResubmit(row, session.config.limits.gapRestart, args.start);
  await session.store.runner.update(reset);
  return reset;
}

/** A StoreError as the submission failure it is for the user; anything else unchanged. */
function asSubmitError(err: unknown): unknown {
  return err instanceof StoreError ? new SubmitError(`cannot record the transfer: ${err.message}`, ErrorCode.Internal) : err;
}

/** One submission (new row or restart); the record, or the error code of the failure. */
async function submitOne(session: ClientSession, s: Submission | { partner: string; id: bigint; args: TransferArgs }): Promise<TransferRecord> {
  try {
    if ('id' in s) return await resubmit(session, s.partner, s.id, s.args);
    const record = await submittedRecord(session, s);
    await session.store.runner.insert(record);
    return record;
  } catch (err) {
    throw asSubmitError(err);
  }
}

/** The outcome of one file of a batch: its row as inserted, or why it has none. */
type Outcome = { record: TransferRecord } | { error: SubmitError };

/**
 * New rows for `files` (at most {@link SUBMIT_BATCH}) to one partner, with the outcome per file that
 * {@link submitOne} would give one by one: the partner looked up once, then the ids and the rows in
 * one transaction (one statement for the ids, one for the rows). When that transaction fails, the
 * rows are written one by one, each with its own id, so only the files whose row cannot be written
 * fail. Errors other than the store's end the command, as they do for one file.
 */
async function submitBatch(session: ClientSession, partnerId: string, rule: Rule, files: readonly LocalFile[], args: TransferArgs,
  onOutcome: (o: Outcome) => void): Promise<void> {
  const rows: Array<Omit<TransferRecord, 'specialId'>> = [];
  try {
    const partner = await session.partner(partnerId);
    if (partner === undefined) {
      for (const _ of files) onOutcome({ error: unknownPartner(partnerId) });
      return;
    }
    for (const f of files) rows.push(await newRecord(session, partner, { partner: partnerId, rule, file: f.path, size: f.size, args }));
  } catch (err) {
    const error = asSubmitError(err);
    if (!(error instanceof SubmitError)) throw error;
    for (const _ of files) onOutcome({ error });
    return;
  }
  let records: TransferRecord[];
  try {
    records = await session.store.transaction(async (tx) => {
      const ids = await tx.nextTransferIds(rows.length);
      const batch = rows.map((r, i): TransferRecord => ({ ...r, specialId: ids[i] as bigint }));
      await tx.runner.insertMany(batch);
      return batch;
    });
  } catch {
    // One row failed them all (or a passing error): nothing of the batch was written.
    for (const row of rows) {
      let record: TransferRecord;
      try {
        record = { ...row, specialId: await session.store.nextTransferId() };
        await session.store.runner.insert(record);
      } catch (err) {
        const error = asSubmitError(err);
        if (!(error instanceof SubmitError)) throw error;
        onOutcome({ error });
        continue;
      }
      onOutcome({ record });
    }
    return;
  }
  for (const record of records) onOutcome({ record });
}

function print(ctx: ClientCommandContext, format: OutputFormat, label: string, args: string, status: ResultStatus, body: ResultFields): void {
  const statusText = `Prepare transfer in ${statusWord(status)}`;
  printResult(ctx.io, format, label, statusText, resultObject(label, args, status, statusText, body));
}

async function ruleOf(session: ClientSession, name: string | undefined): Promise<Rule | undefined> {
  return name === undefined ? undefined : session.store.rules.get(name);
}

export async function asendCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return guarded(ctx.io, 'asend', { badSetup: ASEND_EXIT.badArgs, unexpected: ErrorCode.Internal.ordinal }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    const targs = parseTransferArgs(args, { multiple: false, command: 'asend' });
    return withSession(configFile, { mode: 'submit' }, async (session) => {
      const partnerId = session.realHostId(targs.to[0] as string);
      const label = 'SubmitTransfer';
      const argText = argsField(configFile, args);
      try {
        let record: TransferRecord;
        if (targs.id !== undefined) {
          record = await submitOne(session, { partner: partnerId, id: targs.id, args: targs });
        } else {
          const rule = await ruleOf(session, targs.rule);
          if (rule === undefined) throw new SubmitError(`rule ${targs.rule ?? ''} is not known`, ErrorCode.Internal);
          record = await submitOne(session, { partner: partnerId, rule, file: unescapeWildcards(targs.files[0] as string), args: targs });
        }
        print(ctx, targs.format, label, argText, 0, addRecordFields(new ResultFields(), record, partnerId));
        return ASEND_EXIT.ok;
      } catch (err) {
        if (!(err instanceof SubmitError)) throw err;
        print(ctx, targs.format, label, argText, 2, new ResultFields().set('remote', partnerId).set('error', `${err.code.name}: ${err.message}`));
        return exitCodeOf(err.code);
      }
    });
  });
}

/** The files of one partner for masend: local expansion (send rules) or, with -client, remote. */
async function filesFor(session: ClientSession, rule: Rule, partnerId: string, targs: TransferArgs): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  for (const f of targs.files) {
    if (isSendMode(rule.mode)) out.push(...(await expandLocalFiles(session.config.directories, rule, f)));
    else if (targs.client) out.push(...(await expandRemote(await session.pool(), partnerId, rule.idRule, f, session.config.limits.timeoutCon)).map((path) => ({ path })));
    else out.push({ path: unescapeWildcards(f) });
  }
  return out;
}

export async function masendCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return guarded(ctx.io, 'masend', { badSetup: MASEND_EXIT.badArgs, unexpected: ErrorCode.Internal.ordinal }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    const targs = parseTransferArgs(args, { multiple: true, allowClient: true, command: 'masend' });
    if (targs.id !== undefined) throw new UsageError('masend submits new transfers: use asend -id ID to restart one');
    return withSession(configFile, { mode: targs.client ? 'full' : 'submit' }, async (session) => {
      const started = Date.now();
      const argText = argsField(configFile, args);
      const rule = await ruleOf(session, targs.rule);
      if (rule === undefined) {
        print(ctx, targs.format, 'Unique MultipleSubmitTransfer', argText, 2, new ResultFields().set('error', `rule ${targs.rule ?? ''} is not known`));
        return MASEND_EXIT.ruleNotFound;
      }
      let ok = 0;
      let ko = 0;
      for (const to of targs.to) {
        const partnerId = session.realHostId(to);
        let files: LocalFile[];
        try {
          files = await filesFor(session, rule, partnerId, targs);
        } catch (err) {
          if (!(err instanceof R66Error)) throw err;
          ko++;
          print(ctx, targs.format, 'MultipleSubmitTransfer', argText, 2, new ResultFields().set('remote', partnerId).set('error', `${err.code.name}: ${err.message}`));
          continue;
        }
        // The results of a batch leave in one write (the same text as one write per file).
        const lines: string[] = [];
        const batchCtx: ClientCommandContext = { ...ctx, io: { out: (text) => void lines.push(text), err: (text) => ctx.io.err(text) } };
        for (let i = 0; i < files.length; i += SUBMIT_BATCH) {
          try {
            await submitBatch(session, partnerId, rule, files.slice(i, i + SUBMIT_BATCH), targs, (o) => {
              if ('record' in o) {
                ok++;
                print(batchCtx, targs.format, 'MultipleSubmitTransfer', argText, 0, addRecordFields(new ResultFields(), o.record, partnerId));
              } else {
                ko++;
                print(batchCtx, targs.format, 'MultipleSubmitTransfer', argText, 2, new ResultFields().set('remote', partnerId).set('error', `${o.error.code.name}: ${o.error.message}`));
              }
            });
          } finally {
            if (lines.length > 0) ctx.io.out(lines.join(''));
            lines.length = 0;
          }
        }
      }
      const summary = new ResultFields().set('remote', targs.to.join(',')).set('ok', ok).set('ko', ko).set('delay', Date.now() - started);
      print(ctx, targs.format, 'Unique MultipleSubmitTransfer', argText, ko === 0 ? 0 : 2, summary);
      return ko;
    });
  });
}
