/**
 * `asend` and `masend` (cli.md §3.3, §3.5): asynchronous submissions. No partner is contacted: a
 * RUNNER row with UPDATEDINFO = 3 goes into the database shared with the server, whose scheduler
 * starts it at STARTTRANS (database.md §9.1). `-id` resets an existing row for restart instead.
 */
import { ErrorCode } from '../../model/error-code.js';
import { isSendMode, type Rule } from '../../model/rule.js';
import type { TransferRecord } from '../../model/transfer.js';
import { R66Error } from '../../model/r66-error.js';
import { aliveWindowMs, ANY_READABLE_FILE, asOrderError, TransferOrders, type TransferOrder } from '../../operations/index.js';
import { StoreError } from '../../store/index.js';
import { UsageError } from '../cli-error.js';
import { expandLocalFiles, expandRemote, unescapeWildcards, type LocalFile } from './files.js';
import { argsField, printResult, resultObject, ResultFields, statusWord, type OutputFormat, type ResultStatus } from './output.js';
import { addRecordFields } from './record-fields.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext, type ClientSession } from './session.js';
import { parseTransferArgs, type TransferArgs } from './transfer-args.js';
import { ASEND_EXIT, exitCodeOf, MASEND_EXIT } from '../exit-codes.js';

/**
 * masend writes its rows this many at a time: the ids in one statement and the rows in one
 * transaction, so a running server's scheduler sees them arrive in chunks and the database's write
 * lock is taken once per chunk rather than twice per file.
 */
export const SUBMIT_BATCH = 100;

/** A submission that could not be made: the typed error, whose code gives the exit code. */
type SubmitError = R66Error;

/** The one order service over this client's database (no engine: rows for the server's scheduler). */
function ordersOf(session: ClientSession): TransferOrders {
  const { config } = session;
  return new TransferOrders({
    store: session.store, hostId: config.hostId, sslHostId: config.sslHostId, directories: config.directories, blockSize: config.limits.blockSize,
    // A local submission: any file this process can read, as the original (operations/order-files.ts).
    partner: (id) => session.partner(id), extraServed: ANY_READABLE_FILE, aliveWindowMs: aliveWindowMs(config.limits.timeoutCon),
  });
}

/** The order of one file of these arguments. */
function orderOf(partner: string, rule: Rule, file: LocalFile, args: TransferArgs): TransferOrder {
  return {
    partner, rule: rule.idRule, file: file.path, md5: args.md5, fileInfo: args.info, noFollow: args.noFollow,
    ...(file.size !== undefined ? { size: file.size } : {}), ...(args.blockSize !== undefined ? { blockSize: args.blockSize } : {}),
    ...(args.start !== undefined ? { start: args.start } : {}),
  };
}

/** A store failure as the submission failure it is for the user; a refusal unchanged. */
function asSubmitError(err: unknown): SubmitError {
  if (err instanceof StoreError) return new R66Error(ErrorCode.Internal, `cannot record the transfer: ${err.message}`, { cause: err });
  return asOrderError(err);
}

/** One submission (new row, or the reset of `-id` for a restart); the record, or the error of the failure. */
async function submitOne(session: ClientSession, s: { partner: string; rule: Rule; file: string; args: TransferArgs } | { partner: string; id: bigint; args: TransferArgs }): Promise<TransferRecord> {
  const orders = ordersOf(session);
  try {
    if ('id' in s) return await orders.resubmit(await orders.keyFor(s.partner, s.id), s.args.start);
    return await orders.submit(orderOf(s.partner, s.rule, { path: s.file }, s.args));
  } catch (err) {
    throw asSubmitError(err);
  }
}

/** The outcome of one file of a batch: its row as inserted, or why it has none. */
type Outcome = { record: TransferRecord } | { error: SubmitError };

/**
 * New rows for `files` (at most {@link SUBMIT_BATCH}) to one partner through the order service's
 * batch (the ids in one statement and the rows in one transaction; when that fails, one by one so
 * only the files whose row cannot be written fail), with the outcome per file.
 */
async function submitBatch(session: ClientSession, partnerId: string, rule: Rule, files: readonly LocalFile[], args: TransferArgs,
  onOutcome: (o: Outcome) => void): Promise<void> {
  const results = await ordersOf(session).submitMany(files.map((f) => orderOf(partnerId, rule, f, args)));
  for (const r of results) onOutcome(r instanceof R66Error ? { error: asSubmitError(r.cause instanceof StoreError ? r.cause : r) } : { record: r });
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
          if (rule === undefined) throw new R66Error(ErrorCode.Internal, `rule ${targs.rule ?? ''} is not known`);
          record = await submitOne(session, { partner: partnerId, rule, file: unescapeWildcards(targs.files[0] as string), args: targs });
        }
        print(ctx, targs.format, label, argText, 0, addRecordFields(new ResultFields(), record, partnerId));
        return ASEND_EXIT.ok;
      } catch (err) {
        if (!(err instanceof R66Error)) throw err;
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
