/**
 * One ICAP scan with its result status and post action (icap.md §3): what the ICAP task and
 * `svc-r66client icaptest` both run.
 */
import { copyFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { bufferSource, fileSource, icapExchange, type IcapSource } from './icap-client.js';
import { ERR, IcapFailure } from './icap-connection.js';
import { EICARTEST, type IcapLogLevel, type IcapOptions } from './icap-options.js';

export type IcapStatus = 0 | 1 | 2 | 3 | 4 | 5;

export interface IcapScanResult {
  status: IcapStatus;
  message: string;
}

/** Where the scan logs: one call per line, at its level. */
export type IcapLogger = (level: 'debug' | 'info' | 'warn' | 'error', msg: string) => void;

/**
 * The standard 68-byte EICAR test string. Built from two halves so that this source file is not
 * itself reported by a virus scanner.
 */
export function eicarBytes(): Buffer {
  return Buffer.from(['X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-', 'ANTIVIRUS-TEST-FILE!$H+H*'].join(''), 'latin1');
}

const RANK: Record<IcapLogLevel, number> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };

/** Drops the lines below `-logger`'s level (all lines go through when it is not given). */
function filtered(log: IcapLogger, level: IcapLogLevel | undefined): IcapLogger {
  if (level === undefined) return log;
  const min = RANK[level];
  return (l, msg) => {
    if (RANK[l.toUpperCase() as IcapLogLevel] >= min) log(l, msg);
  };
}

async function openSource(o: IcapOptions): Promise<IcapSource> {
  if (o.file === EICARTEST) return bufferSource(eicarBytes());
  try {
    const info = await stat(o.file);
    if (!info.isFile()) throw new IcapFailure(1, ERR.ARGUMENT, `${o.file} is not a regular file`);
    return await fileSource(o.file);
  } catch (err) {
    if (err instanceof IcapFailure) throw err;
    throw new IcapFailure(1, ERR.ARGUMENT, `cannot read ${o.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Moves a file, by copy and delete when rename cannot (another file system). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await unlink(from);
  }
}

async function isDirectory(path: string): Promise<boolean | null> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return null; // does not exist
  }
}

/** The post action of a rejected file: 4 when done (or none configured), 5 when it failed. */
async function postAction(o: IcapOptions, log: IcapLogger): Promise<{ status: 4 | 5; what: string }> {
  if (o.file === EICARTEST) return { status: 4, what: 'nothing to delete or move for EICARTEST' };
  if (o.errorDelete) {
    try {
      await unlink(o.file);
      return { status: 4, what: `${o.file} deleted` };
    } catch (err) {
      return { status: 5, what: `${o.file} could not be deleted: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
    }
  }
  if (o.errorMove !== undefined) {
    const target = o.errorMove;
    const kind = await isDirectory(target);
    try {
      if (kind === true) {
        const dest = join(target, basename(o.file));
        await moveFile(o.file, dest);
        return { status: 4, what: `${o.file} moved to ${dest}` };
      }
      if (kind === false) return { status: 5, what: `-errorMove ${target} exists and is not a directory` };
      if ((await isDirectory(dirname(target))) !== true) return { status: 5, what: `-errorMove ${target}: neither it nor its parent is a directory` };
    } catch (err) {
      return { status: 5, what: `${o.file} could not be moved to ${target}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
    }
    try {
      await moveFile(o.file, target);
      return { status: 4, what: `${o.file} moved to ${target}` };
    } catch (err) {
      // As in the original, a failure to move to a new name inside an existing directory is only logged.
      log('warn', `${o.file} could not be moved to ${target}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return { status: 4, what: `${o.file} not moved` };
    }
  }
  return { status: 4, what: 'no post action configured' };
}

/** Scans `o.file` with `o`; never throws. */
export async function icapScan(o: IcapOptions, logger: IcapLogger): Promise<IcapScanResult> {
  const log = filtered(logger, o.logger);
  if (o.badLogger !== undefined) logger('warn', `-logger ${o.badLogger} is not a level (DEBUG, INFO, WARN, ERROR): ignored`);
  const where = `${o.host}:${o.port}/${o.service}`;
  let source: IcapSource | null = null;
  try {
    source = await openSource(o);
    if (source.size > o.maxSize) {
      const text = `${o.file} is ${source.size} bytes, larger than -maxSize ${o.maxSize}`;
      if (o.ignoreTooBigFileError) {
        log('warn', `${text}: not scanned, accepted (-ignoreTooBigFileError)`);
        return { status: 0, message: `${text}: not scanned, accepted (-ignoreTooBigFileError)` };
      }
      throw new IcapFailure(1, ERR.TOO_BIG, `${text}: not scanned`);
    }
    log('info', `scanning ${o.file} (${source.size} bytes) with ICAP ${where}`);
    const verdict = await icapExchange(o, source, (l, m) => log(l, m));
    if (verdict.ok) {
      log('info', `${o.file} accepted by ${where}: ${verdict.reason}`);
      return { status: 0, message: `${o.file} accepted by ${where}: ${verdict.reason}` };
    }
    await source.close();
    source = null;
    const after = await postAction(o, log);
    const message = `${o.file} rejected by ${where}: ${verdict.reason}; ${after.what}`;
    log(after.status === 4 ? 'warn' : 'error', message);
    return { status: after.status, message };
  } catch (err) {
    const failure = err instanceof IcapFailure ? err : new IcapFailure(3, ERR.NETWORK, String(err));
    const message = `ICAP scan of ${o.file} with ${where} failed (error ${failure.id}): ${failure.message}`;
    if (failure.status === 3 && o.ignoreNetworkError) {
      log('warn', `${message}; accepted (-ignoreNetworkError)`);
      return { status: 0, message: `${message}; accepted (-ignoreNetworkError)` };
    }
    log('error', message);
    return { status: failure.status, message };
  } finally {
    await source?.close().catch(() => undefined);
  }
}
