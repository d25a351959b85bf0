/**
 * Tasks that check or adjust the current file in place (tasks.md §8): VALIDFILEPATH, CHKFILE,
 * CHMOD, UNZEROED.
 */
import { chmod, stat, statfs, writeFile } from 'node:fs/promises';
import { ErrorCode } from '../model/error-code.js';
import type { TaskContext } from './context.js';
import { toSlashes } from './paths.js';
import { pipelineA } from './substitution.js';
import { readInfoMap, infoInteger } from './transfer-info.js';
import { errorText, failure, success, type TaskImplementation, type TaskResult } from './task.js';

/** VALIDFILEPATH: the current path must start with one of the listed prefixes (plain string prefix). */
const validFilePathTask: TaskImplementation = {
  async run({ type, argument, delay, ctx }) {
    const prefixes = toSlashes(pipelineA(argument, ctx).text).split(' ').filter((p) => p !== '');
    const path = toSlashes(ctx.currentFile ?? '');
    const ok = path !== '' && prefixes.some((p) => path.startsWith(p));
    if (delay > 0) {
      if (ok) ctx.logger.info(`${type}: ${path} is inside ${prefixes.join(' ')}`);
      else ctx.logger.error(`${type}: ${path || 'nofile'} is not inside any of ${prefixes.join(' ')}`);
    }
    return ok ? success() : failure(`${type}: file ${path || 'nofile'} is not inside any allowed directory (${prefixes.join(' ')})`);
  },
};

/** The size the sender announced (`ORIGINALSIZE` of the transfer map), -1 when unknown. */
export function announcedSize(ctx: TaskContext): bigint {
  if (!ctx.transfer) return -1n;
  return infoInteger(readInfoMap(ctx.transfer.transferInfo).ORIGINALSIZE) ?? -1n;
}

const COMPARE: Record<string, (a: bigint, b: bigint) => boolean> = {
  LT: (a, b) => a < b,
  GT: (a, b) => a > b,
  LTE: (a, b) => a <= b,
  GTE: (a, b) => a >= b,
  EQ: (a, b) => a === b,
};

/** Free bytes of the file system holding `dir`, or null when unknown. */
async function freeSpace(dir: string | undefined): Promise<bigint | null> {
  if (!dir) return null;
  try {
    const s = await statfs(dir, { bigint: true });
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** CHKFILE: `SIZE <OP> <n>` on the announced size, `DFCHECK` free space on the receiver. Raw argument. */
const chkFileTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    if (!ctx.transfer) return failure(`${type}: no transfer record to check`);
    const size = announcedSize(ctx);
    if (size <= 0n) return success(); // unknown size: nothing can be checked
    const words = argument.split(' ').filter((w) => w !== '');
    for (let i = 0; i < words.length; i++) {
      const word = words[i];
      if (word === 'SIZE') {
        const op = COMPARE[words[i + 1] ?? ''];
        const limit = words[i + 2] ?? '';
        if (!op || !/^-?\d+$/.test(limit)) continue; // malformed item: ignored, as in the original
        i += 2;
        if (!op(size, BigInt(limit))) {
          return failure(`${type}: announced size ${size} is not ${words[i - 1]} ${limit}`, ErrorCode.SizeNotAllowed);
        }
      } else if (word === 'DFCHECK' && !ctx.session.isSender) {
        for (const dir of [ctx.dirs.work, ctx.dirs.in]) {
          const free = await freeSpace(dir);
          if (free !== null && free > 0n && free < size) {
            return failure(`${type}: only ${free} bytes free in ${dir}, ${size} needed`, ErrorCode.SizeNotAllowed);
          }
        }
      }
    }
    return success();
  },
};

interface ChmodBits { r: boolean; w: boolean; x: boolean }

function applyOp(bits: ChmodBits, op: string, wanted: ChmodBits): ChmodBits {
  if (op === '=') return { ...wanted };
  const set = op === '+';
  return { r: wanted.r ? set : bits.r, w: wanted.w ? set : bits.w, x: wanted.x ? set : bits.x };
}

function toOctal(b: ChmodBits): number {
  return (b.r ? 4 : 0) | (b.w ? 2 : 0) | (b.x ? 1 : 0);
}

/**
 * The new mode for CHMOD tokens (tasks.md §8): owner bits start from the current owner bits,
 * "all" bits start cleared; with any `a` token, group and others (and owner) get "all", then the
 * owner gets its own computed bits. Exported for tests.
 */
export function chmodMode(currentMode: number, spec: string): number {
  const ownerNow = (currentMode >> 6) & 7;
  let owner: ChmodBits = { r: (ownerNow & 4) !== 0, w: (ownerNow & 2) !== 0, x: (ownerNow & 1) !== 0 };
  let all: ChmodBits = { r: false, w: false, x: false };
  let anyAll = false;
  for (const token of spec.toLowerCase().split(' ')) {
    const forOwner = token.includes('u');
    const forAll = token.includes('a');
    const op = token.includes('=') ? '=' : token.includes('+') ? '+' : token.includes('-') ? '-' : '';
    const wanted = { r: token.includes('r'), w: token.includes('w'), x: token.includes('x') };
    if ((!forOwner && !forAll) || op === '' || !(wanted.r || wanted.w || wanted.x)) continue;
    if (forOwner) owner = applyOp(owner, op, wanted);
    if (forAll) {
      all = applyOp(all, op, wanted);
      anyAll = true;
    }
  }
  let mode = currentMode & ~0o777;
  if (anyAll) mode |= toOctal(all) * 0o111;
  else mode |= currentMode & 0o077;
  return mode | (toOctal(owner) << 6);
}

/** CHMOD: pipeline A, `\` -> `/`, trimmed, lower-cased tokens applied to the current file. */
const chmodTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    const file = ctx.currentFile;
    if (!file) return failure(`${type}: the transfer has no current file`, ErrorCode.FileNotFound);
    const spec = toSlashes(pipelineA(argument, ctx).text).trim().toLowerCase();
    try {
      const st = await stat(file);
      await chmod(file, chmodMode(st.mode & 0o7777, spec));
    } catch (err) {
      return failure(`${type}: cannot change permissions of ${file}: ${errorText(err)}`);
    }
    return success();
  },
};

/** UNZEROED: an empty current file receives the raw argument (or one space). */
const unzeroedTask: TaskImplementation = {
  async run({ type, argument, delay, ctx }): Promise<TaskResult> {
    const file = ctx.currentFile;
    if (!file) return success();
    try {
      const st = await stat(file);
      if (!st.isFile() || st.size > 0) return success();
    } catch {
      return success(); // no file, nothing to fill
    }
    try {
      await writeFile(file, argument === '' ? ' ' : argument, 'utf8');
    } catch (err) {
      return failure(`${type}: cannot write into empty file ${file}: ${errorText(err)}`);
    }
    const note = `${type}: empty file ${file} filled`;
    if (delay === 1) ctx.logger.info(note);
    else if (delay >= 2) ctx.logger.warn(note);
    return success();
  },
};

export const checkTasks: Record<string, TaskImplementation> = {
  VALIDFILEPATH: validFilePathTask,
  CHKFILE: chkFileTask,
  CHMOD: chmodTask,
  UNZEROED: unzeroedTask,
};
