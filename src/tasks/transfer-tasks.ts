/**
 * Tasks that act on transfers or on the server through the engine: TRANSFER submits a new
 * transfer, RESTART restarts the server (tasks.md §8). RESCHEDULE lives in reschedule-task.ts.
 */
import { checkRange, OPTION_RANGES } from '../config/ranges.js';
import { CommandLineError, commandLineFailure } from './command-line.js';
import type { TaskContext, TransferSubmission } from './context.js';
import { nowOf } from './context.js';
import { pipelineB } from './substitution.js';
import { infoInteger, readInfoMap } from './transfer-info.js';
import { errorText, failure, success, type TaskImplementation } from './task.js';

/** `yyyyMMddHHmmss` as local time, or null. */
export function parseStartDate(text: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  return date.getMonth() === mo - 1 && date.getDate() === d ? date : null;
}

/**
 * Parses the `send`-style options of TRANSFER. Returns the submission (without the final info
 * assembly) or an error message.
 */
export function parseTransferOptions(words: string[], now: Date): { req: TransferSubmission; copyInfo: boolean } | string {
  let to: string | undefined;
  let file: string | undefined;
  let rule: string | undefined;
  let id: bigint | undefined;
  let blockSize: number | undefined;
  let start: Date | undefined;
  let startGiven = false;
  let delayGiven = false;
  const flags = { md5: false, noFollow: false, noLog: false, copyInfo: false };
  let logWarn: boolean | undefined;
  let info = 'noinfo';
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = (): string | undefined => words[++i];
    switch (w) {
      case '--':
        i = words.length;
        break;
      case '-to': to = next(); break;
      case '-file': file = next(); break;
      case '-rule': rule = next(); break;
      case '-id': {
        const v = next() ?? '';
        if (!/^-?\d+$/.test(v)) return `-id expects a transfer id, got "${v}"`;
        const r = checkRange(v, OPTION_RANGES['send -id']);
        if (!r.ok) return `-id: ${r.message}`;
        id = BigInt(r.value);
        break;
      }
      case '-block': {
        // The ranges of send's options (src/config/ranges.ts): a block above 16 MiB, a date past
        // 9999 (an Invalid Date) or an id beyond 64 bits were taken before (issue 32 item 6).
        const r = checkRange(next() ?? '', OPTION_RANGES['send -block']);
        if (!r.ok) return `-block: ${r.message}`;
        blockSize = Number(r.value);
        break;
      }
      case '-md5': flags.md5 = true; break;
      case '-nofollow': flags.noFollow = true; break;
      case '-nolog': flags.noLog = true; break;
      case '-logWarn': logWarn = true; break;
      case '-notlogWarn': logWarn = false; break;
      case '-copyinfo': flags.copyInfo = true; break;
      case '-start': {
        const v = next() ?? '';
        const d = parseStartDate(v);
        if (!d) return `-start expects yyyyMMddHHmmss, got "${v}"`;
        start = d;
        startGiven = true;
        break;
      }
      case '-delay': {
        const v = next() ?? '';
        if (!/^\+?\d+$/.test(v)) return `-delay expects milliseconds or +milliseconds, got "${v}"`;
        const r = v.startsWith('+') ? checkRange(v.slice(1), OPTION_RANGES['send -delay +MS']) : checkRange(v, OPTION_RANGES['send -delay EPOCHMS']);
        if (!r.ok) return `-delay: ${r.message}`;
        start = v.startsWith('+') ? new Date(now.getTime() + Number(r.value)) : new Date(Number(r.value));
        delayGiven = true;
        break;
      }
      case '-info':
        info = words.slice(i + 1).join(' ');
        i = words.length;
        break;
      default:
        break; // other words are ignored, as the send parser does
    }
  }
  if (startGiven && delayGiven) return '-start and -delay cannot be used together';
  if (!to) return '-to <host> is required';
  if (id === undefined && (!file || !rule)) return '-file and -rule (or -id) are required';
  const req: TransferSubmission = { to, md5: flags.md5, noFollow: flags.noFollow, noLog: flags.noLog, info };
  if (file !== undefined) req.file = file;
  if (rule !== undefined) req.rule = rule;
  if (id !== undefined) req.id = id;
  if (blockSize !== undefined) req.blockSize = blockSize;
  if (start !== undefined) req.start = start;
  if (logWarn !== undefined) req.logWarn = logWarn;
  return { req, copyInfo: flags.copyInfo };
}

/** The information of the new transfer: `-copyinfo`, else the inherited follow id (tasks.md §8). */
export function newTransferInfo(ctx: TaskContext, info: string, copyInfo: boolean, noFollow: boolean): string {
  const t = ctx.transfer;
  if (!t) return info;
  if (copyInfo) return `${t.fileInfo} ${info}`;
  // On the requested host the follow id arrives inside the information text of the request
  // (`... {"follow":id}`, tasks.md §10), not in the technical map: both are looked at.
  const follow = infoInteger(readInfoMap(t.transferInfo).follow) ?? infoInteger(readInfoMap(t.fileInfo).follow);
  if (!noFollow && follow !== undefined && !info.includes('"follow"')) return `${info} {"follow":${follow}}`;
  return info;
}

const transferTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    let words: string[];
    try {
      words = pipelineB(argument, ctx).words;
    } catch (err) {
      if (err instanceof CommandLineError) return commandLineFailure(type, err, ctx.logger);
      throw err;
    }
    if (words.length < 6) return failure(`${type}: at least 6 words expected (-to, -file, -rule ...), got ${words.length}`);
    const parsed = parseTransferOptions(words, nowOf(ctx));
    if (typeof parsed === 'string') return failure(`${type}: ${parsed}`);
    const submitter = ctx.engine.transfers;
    if (!submitter) return failure(`${type}: this host cannot submit transfers here`);
    const req = { ...parsed.req, info: newTransferInfo(ctx, parsed.req.info, parsed.copyInfo, parsed.req.noFollow) };
    try {
      const id = await submitter.submit(req);
      ctx.logger.info(`${type}: transfer ${id} submitted to ${req.to}`);
      return success(id.toString());
    } catch (err) {
      return failure(`${type}: submission to ${req.to} refused: ${errorText(err)}`);
    }
  },
};

/** Delay between the success of RESTART and the shutdown + restart of the server. */
export const RESTART_DELAY_MS = 1000;

const restartTask: TaskImplementation = {
  async run({ type, ctx }) {
    if (!ctx.session.partnerIsSystem) return failure(`${type}: partner ${ctx.session.remoteHostId ?? '(none)'} does not hold the SYSTEM role`);
    const restarter = ctx.engine.restarter;
    if (!restarter) return failure(`${type}: only a server can restart`);
    restarter.restartAfter(RESTART_DELAY_MS);
    ctx.logger.warn(`${type}: server restart requested by ${ctx.session.remoteHostId ?? 'partner'}`);
    return success();
  },
};

export const transferTasks: Record<string, TaskImplementation> = {
  TRANSFER: transferTask,
  RESTART: restartTask,
};
