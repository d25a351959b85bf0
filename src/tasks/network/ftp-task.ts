/**
 * The FTP task (tasks.md §8 FTP). Failure codes: bad arguments `c` (CommandNotFound), no
 * connection or login `C` (ConnectionImpossible), transfer or digest failure `T` (TransferError).
 * The password never reaches a log or an error text: every message is scrubbed of it.
 */
import { ErrorCode } from '../../model/error-code.js';
import { resolveTaskPath } from '../paths.js';
import { failure, success, type TaskImplementation, type TaskResult } from '../task.js';
import { FtpArgumentError, ftpWords, parseFtpOptions, type FtpOptions } from './ftp-options.js';
import { FtpTaskError, runFtp } from './ftp-session.js';
import { scrub } from './scrub.js';

export const ftpTask: TaskImplementation = {
  async run({ type, argument, ctx }): Promise<TaskResult> {
    let o: FtpOptions;
    try {
      o = parseFtpOptions(ftpWords(argument, ctx));
    } catch (err) {
      if (err instanceof FtpArgumentError) return failure(`${type}: ${err.message}`, ErrorCode.CommandNotFound);
      throw err;
    }
    o = { ...o, file: resolveTaskPath(ctx, o.file) };
    const secrets = [o.password];
    const log = (level: 'debug' | 'info' | 'warn', msg: string): void => ctx.logger[level](`${type}: ${scrub(msg, secrets)}`);
    ctx.engine.keepAlive?.();
    try {
      await runFtp(o, log);
      log('info', `${o.command} of ${o.file} with ${o.host}:${o.port} done`);
      return success();
    } catch (err) {
      const message = `${type}: ${scrub(err instanceof Error ? err.message : String(err), secrets)}`;
      const code = err instanceof FtpTaskError && err.kind === 'connect' ? ErrorCode.ConnectionImpossible : ErrorCode.TransferError;
      return failure(message, code);
    } finally {
      ctx.engine.keepAlive?.();
    }
  },
};
