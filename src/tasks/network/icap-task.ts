/**
 * The ICAP task (tasks.md §8 ICAP, icap.md §4): pipeline B, the scan, and on a rejected file with
 * `-sendOnError` a TRANSFER of the words after `--`. Only a clean file (status 0) is a success.
 */
import { nowOf, type TaskContext, type TaskLogger } from '../context.js';
import { resolveTaskPath } from '../paths.js';
import { errorText, failure, success, type TaskImplementation, type TaskResult } from '../task.js';
import { newTransferInfo, parseTransferOptions } from '../transfer-tasks.js';
import { EICARTEST, IcapArgumentError, parseIcapOptions, type IcapOptions } from './icap-options.js';
import { icapScan, type IcapLogger } from './icap-scan.js';
import { taskWords } from './words.js';

/** Sends the scan's lines to the task logger. */
export function taskIcapLogger(logger: TaskLogger): IcapLogger {
  return (level, msg) => logger[level](`ICAP: ${msg}`);
}

/** The resend of `-sendOnError`: a TRANSFER with the words after `--`; returns what happened. */
async function resend(ctx: TaskContext, o: IcapOptions): Promise<string> {
  const parsed = parseTransferOptions(o.transferArgs, nowOf(ctx));
  if (typeof parsed === 'string') return `resend not submitted: ${parsed}`;
  const submitter = ctx.engine.transfers;
  if (!submitter) return 'resend not submitted: this host cannot submit transfers here';
  try {
    const id = await submitter.submit({ ...parsed.req, info: newTransferInfo(ctx, parsed.req.info, parsed.copyInfo, parsed.req.noFollow) });
    return `resend submitted as transfer ${id} to ${parsed.req.to}`;
  } catch (err) {
    return `resend to ${parsed.req.to} refused: ${errorText(err)}`;
  }
}

export const icapTask: TaskImplementation = {
  async run({ type, argument, ctx }): Promise<TaskResult> {
    const words = taskWords(type, argument, ctx, 6, '-file, -to, -service or -model ...');
    if (!Array.isArray(words)) return words;
    let o: IcapOptions;
    try {
      o = parseIcapOptions(words);
    } catch (err) {
      if (err instanceof IcapArgumentError) return failure(`${type}: ${err.message}`);
      throw err;
    }
    // Relative paths are read from the host's home, as every task does (the original: its working directory).
    if (o.file !== EICARTEST) o = { ...o, file: resolveTaskPath(ctx, o.file) };
    if (o.errorMove !== undefined) o = { ...o, errorMove: resolveTaskPath(ctx, o.errorMove) };
    ctx.engine.keepAlive?.();
    const result = await icapScan(o, taskIcapLogger(ctx.logger));
    ctx.engine.keepAlive?.();
    if (result.status === 0) return success(result.message);
    if (result.status === 4 && o.sendOnError && o.hasSeparator) {
      return failure(`${type}: ${result.message}; ${await resend(ctx, o)}`);
    }
    return failure(`${type}: status ${result.status}: ${result.message}`);
  },
};
