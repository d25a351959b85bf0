/**
 * `send` and `msend` (cli.md §3.2, §3.4): synchronous transfers. Like the original client, this
 * process runs its own transfer engine towards the partner, records the transfer in the client's
 * store, waits for the end and exits with the ordinal of the final status code.
 */
import { ErrorCode } from '../../model/error-code.js';
import { isSendMode, type Rule } from '../../model/rule.js';
import type { TransferRecord } from '../../model/transfer.js';
import { R66Error } from '../../model/r66-error.js';
import { ANY_READABLE_FILE, engineWithOrders, type TransferOrders } from '../../operations/index.js';
import type { TransferEngine, TransferOutcome, TransferRequest } from '../../transfer/index.js';
import { runInOrderWindow } from './in-order-window.js';
import { UsageError } from '../cli-error.js';
import { expandLocal, expandRemote, unescapeWildcards } from './files.js';
import { argsField, fileFinalText, printResult, resultObject, ResultFields, statusWord, virtualPath, type ResultStatus } from './output.js';
import { showProgress, type ProgressHandle } from './progress.js';
import { addRecordFields, transferErrorText } from './record-fields.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext, type ClientSession } from './session.js';
import { parseTransferArgs, type TransferArgs } from './transfer-args.js';
import { exitCodeOf, MSEND_EXIT, SEND_EXIT } from '../exit-codes.js';


/** One finished direct transfer as the commands print it. */
interface DirectResult {
  status: ResultStatus;
  /** 0 on success or warning, else the ordinal of the final code; 21 when no record exists. */
  exit: number;
  body: ResultFields;
  record: TransferRecord | undefined;
}

/**
 * What `send` and `msend` may name as an absolute file: anything the user running the command can
 * read (cli.md §3: "relative to the rule's send directory or absolute"), the policy of every local
 * submission (operations/order-files.ts).
 */
const ANY_FILE_OF_THE_LOCAL_USER = ANY_READABLE_FILE;

/**
 * A transfer engine of this client process (its store, pool and directories); `extraServed`: see
 * TransferEngineOptions. `orders`: the process's order service when it exists before the engine
 * (the FileWatcher's); else one made with it (`engine.orders`, engineWithOrders), which the commands call.
 */
export async function openEngine(session: ClientSession, extraServed: readonly string[] = [], orders?: TransferOrders): Promise<TransferEngine<TransferOrders>> {
  const { ctx, pool } = await session.network();
  const { config } = session;
  return engineWithOrders({
    identity: ctx.identity,
    directories: config.directories,
    limits: config.limits,
    store: session.store,
    pool,
    tasks: await session.tasks(),
    logger: session.logger,
    ownerId: config.hostId,
    extraServed,
  }, orders);
}

function statusOf(outcome: TransferOutcome): ResultStatus {
  if (outcome.code !== ErrorCode.CompleteOk && outcome.code !== ErrorCode.Warning) return 2;
  return outcome.code === ErrorCode.Warning || outcome.record.infoStatus === ErrorCode.Warning ? 1 : 0;
}

/**
 * Runs one transfer through the order service (engine.orders: prepareNow, then run) and shapes
 * its result; never throws for a transfer failure.
 */
async function runDirect(ctx: ClientCommandContext, session: ClientSession, engine: TransferEngine<TransferOrders>, req: TransferRequest, targs: TransferArgs): Promise<DirectResult> {
  const started = Date.now();
  let progress: ProgressHandle | undefined;
  let outcome: TransferOutcome;
  try {
    const prepared = await engine.orders.prepareNow(req);
    // This transfer's bar only: msend runs several at once (decision 0052).
    progress = showProgress(engine, ctx.isTty ?? process.stderr.isTTY === true, targs.format !== 'quiet', prepared.record.specialId);
    outcome = await engine.orders.run(prepared);
  } catch (err) {
    if (!(err instanceof R66Error)) throw err;
    // No transfer record could be created: the original's "Unknown" failure.
    const body = new ResultFields().set('remote', req.partner).set('ruleid', req.rule).set('error', `${err.code.name}: ${err.message}`);
    return { status: 2, exit: SEND_EXIT.unknown, body, record: undefined };
  } finally {
    progress?.stop();
  }
  const status = statusOf(outcome);
  const body = addRecordFields(new ResultFields(), outcome.record, req.partner);
  if (status < 2) {
    // The original names the file by its virtual path once found (`/out/hello.txt`, captures).
    const shown = outcome.file ? virtualPath(session.config.directories.serverHome, outcome.file) : undefined;
    body.set('finalPath', shown);
    if (outcome.record.retrieveMode) body.set('originalPath', shown);
    body.set('filefinal', fileFinalText(shown)).set('delay', Date.now() - started);
  } else {
    body.set('error', transferErrorText(outcome.record, outcome.code, outcome.message));
    // The whole cause in the log (the original logs the result at WARN): `error` may be the original's fixed text.
    session.logger.warn({ id: String(outcome.record.specialId), code: outcome.code.name }, outcome.message);
  }
  // -nolog: the local record is not kept after a success, nor after a connection failure.
  if (targs.noLog && (status < 2 || outcome.code === ErrorCode.ConnectionImpossible)) {
    await engine.orders.forget(outcome.record).catch(() => undefined);
  }
  return { status, exit: status < 2 ? 0 : exitCodeOf(outcome.code), body, record: outcome.record };
}

function baseRequest(partner: string, rule: string, file: string, targs: TransferArgs): TransferRequest {
  return { partner, rule, file, md5: targs.md5, blockSize: targs.blockSize, fileInfo: targs.info, noFollow: targs.noFollow };
}

/** send -id: rule and file come from the local record of that transfer with the partner. */
async function restartRequest(session: ClientSession, partnerId: string, id: bigint, targs: TransferArgs): Promise<TransferRequest> {
  const partner = await session.partner(partnerId);
  if (partner === undefined) throw new UsageError(`partner ${partnerId} is not known`);
  const key = { specialId: id, ownerReq: session.config.hostId, requester: session.ownIdFor(partner), requested: partner.hostId };
  const row = await session.store.runner.get(key);
  if (row === undefined) throw new UsageError(`transfer ${id} with ${partner.hostId} is not in the local database`);
  return { ...baseRequest(partner.hostId, row.idRule, row.originalName, targs), fileInfo: row.fileInfo, noFollow: true, id };
}

function statusText(status: ResultStatus): string {
  return `Transfer in status: ${statusWord(status)}`;
}

export async function sendCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return guarded(ctx.io, 'send', { badSetup: SEND_EXIT.badArgs, unexpected: SEND_EXIT.unexpected }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    let targs: TransferArgs;
    try {
      targs = parseTransferArgs(args, { multiple: false, command: 'send' });
    } catch (err) {
      // The original prints its "wrong initialization" line unless -quiet.
      if (err instanceof UsageError && !args.includes('-quiet')) ctx.io.out('[DirectTransfer] Wrong initialization\n');
      throw err;
    }
    return withSession(configFile, {}, async (session) => {
      const partnerId = session.realHostId(targs.to[0] as string);
      const req = targs.id !== undefined
        ? await restartRequest(session, partnerId, targs.id, targs)
        : baseRequest(partnerId, targs.rule as string, unescapeWildcards(targs.files[0] as string), targs);
      const engine = await openEngine(session, ANY_FILE_OF_THE_LOCAL_USER);
      const result = await runDirect(ctx, session, engine, req, targs).finally(() => engine.close());
      const label = 'DirectTransfer';
      printResult(ctx.io, targs.format, label, statusText(result.status), resultObject(label, argsField(configFile, args), result.status, statusText(result.status), result.body));
      return result.exit;
    });
  });
}

/**
 * Files of one msend in flight on the partner's connection once it has taken the first (decision
 * 0052): enough to hide the partner's synced write and the round trips of each file; never more
 * than the client's runlimit.
 */
const MSEND_IN_FLIGHT = 8;

function msendInFlight(runLimit: number): number {
  return Math.min(MSEND_IN_FLIGHT, runLimit);
}

async function filesFor(session: ClientSession, rule: Rule, partnerId: string, targs: TransferArgs): Promise<string[]> {
  const out: string[] = [];
  for (const f of targs.files) {
    if (isSendMode(rule.mode)) out.push(...(await expandLocal(session.config.directories, rule, f)));
    else out.push(...(await expandRemote(await session.pool(), partnerId, rule.idRule, f, session.config.limits.timeoutCon)));
  }
  return out;
}

export async function msendCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return guarded(ctx.io, 'msend', { badSetup: MSEND_EXIT.badArgs, unexpected: SEND_EXIT.unexpected }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    const targs = parseTransferArgs(args, { multiple: true, command: 'msend' });
    if (targs.id !== undefined) throw new UsageError('msend starts new transfers: use send -id ID to restart one');
    return withSession(configFile, {}, async (session) => {
      const started = Date.now();
      const argText = argsField(configFile, args);
      const blocks: Array<{ status: ResultStatus; body: ResultFields }> = [];
      let ok = 0;
      let ko = 0;
      let stoppedOnUnknown = false;
      const rule = await session.store.rules.get(targs.rule as string);
      if (rule === undefined) throw new UsageError(`rule ${targs.rule ?? ''} is not known`);
      const engine = await openEngine(session, ANY_FILE_OF_THE_LOCAL_USER);
      try {
        await runAll(rule);
      } finally {
        await engine.close();
      }
      async function runAll(known: Rule): Promise<void> {
      for (const to of targs.to) {
        const partnerId = session.realHostId(to);
        let files: string[];
        try {
          files = await filesFor(session, known, partnerId, targs);
        } catch (err) {
          if (!(err instanceof R66Error)) throw err;
          ko++;
          blocks.push({ status: 2, body: new ResultFields().set('remote', partnerId).set('error', `${err.code.name}: ${err.message}`) });
          continue;
        }
        // The first file goes alone: it opens and authenticates the connection (a refusal is
        // then reported once, and the next file sees the partner's blacklist). Once the partner
        // has taken a file, MSEND_IN_FLIGHT run at once on that connection (decision 0052).
        let accepted = false;
        const results = await runInOrderWindow(files.length, {
          width: () => (accepted ? msendInFlight(session.config.limits.runLimit) : 1),
          job: async (i) => {
            const result = await runDirect(ctx, session, engine, baseRequest(partnerId, known.idRule, files[i] as string, targs), targs);
            if (result.exit === 0) accepted = true;
            return result;
          },
          stopsAfter: (result) => result.record === undefined,
        });
        for (const result of results) settle(result);
        if (results.some((r) => r.record === undefined)) {
          stoppedOnUnknown = true;
          break;
        }
      }
      }
      function settle(result: DirectResult): void {
        blocks.push(result);
        if (result.exit === 0) ok++;
        else ko++;
      }
      const status: ResultStatus = ko === 0 ? 0 : 2;
      // The original's summary: `ko` only when some failed, no `args` in the per-file blocks (captures).
      const summary = new ResultFields().set('remote', targs.to.join(',')).set('ok', ok).set('ko', ko > 0 ? ko : undefined).set('delay', Date.now() - started);
      const summaryText = `Multiple ${statusText(status)}`;
      printResult(ctx.io, targs.format, 'MultipleDirectTransfer', summaryText, resultObject('MultipleDirectTransfer', argText, status, summaryText, summary));
      for (const b of blocks) {
        const label = 'Unique MultipleDirectTransfer';
        printResult(ctx.io, targs.format, label, statusText(b.status), resultObject(label, undefined, b.status, statusText(b.status), b.body));
      }
      return stoppedOnUnknown ? MSEND_EXIT.unknown : ko;
    });
  });
}
