/**
 * Tasks that copy, move, link, repoint or delete the current file (tasks.md §8 COPY ... DELETE).
 *
 * MOVE, MOVERENAME and LINKRENAME repoint the current file as well as the record (documented
 * intent; the original only updates the record, see docs/compatibility.md "Tasks").
 */
import { copyFile, link, mkdir, rename, stat, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ErrorCode } from '../model/error-code.js';
import { repointCurrentFile, type TaskContext } from './context.js';
import { resolveTaskPath, toSlashes } from './paths.js';
import { pipelineA } from './substitution.js';
import { errorText, failure, success, warning, type TaskImplementation, type TaskResult } from './task.js';

/** The current file, checked to be a regular file; a failure result otherwise. */
async function sourceFile(ctx: TaskContext, type: string): Promise<string | TaskResult> {
  const src = ctx.currentFile;
  if (!src) return failure(`${type}: the transfer has no current file`, ErrorCode.FileNotFound);
  try {
    if (!(await stat(src)).isFile()) return failure(`${type}: current file ${src} is not a regular file`);
  } catch (err) {
    return failure(`${type}: cannot read current file ${src}: ${errorText(err)}`, ErrorCode.FileNotFound);
  }
  return src;
}

/** Copies `src` to `dest` (parents created, existing destination overwritten). */
async function copyTo(src: string, dest: string): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  await copyFile(src, dest);
}

/** Moves `src` to `dest`: atomic rename, else copy then delete (delete result not checked). */
async function moveTo(src: string, dest: string): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  try {
    await rename(src, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(src, dest);
    await unlink(src).catch(() => undefined);
  }
}

/** Pipeline A, trimmed, `\` -> `/`: the common argument of COPYRENAME, MOVE, MOVERENAME, RENAME. */
function targetArgument(argument: string, ctx: TaskContext): string {
  return toSlashes(pipelineA(argument, ctx).text.trim());
}

type Destination = (argument: string, ctx: TaskContext, src: string) => string;

/** The argument is a directory; the file keeps its base name. */
const intoDirectory = (raw: boolean): Destination => (argument, ctx, src) =>
  join(resolveTaskPath(ctx, raw ? argument : targetArgument(argument, ctx)), basename(src));
/** The argument is the full destination path. */
const fullPath: Destination = (argument, ctx) => resolveTaskPath(ctx, targetArgument(argument, ctx));

/** Copy or move the current file to `destination`; a move also repoints the current file. */
function makeTransferTask(destination: Destination, op: 'copy' | 'move'): TaskImplementation {
  return {
    async run({ type, argument, ctx }) {
      const src = await sourceFile(ctx, type);
      if (typeof src !== 'string') return src;
      const dest = destination(argument, ctx, src);
      try {
        await (op === 'copy' ? copyTo(src, dest) : moveTo(src, dest));
      } catch (err) {
        return failure(`${type}: cannot ${op} ${src} to ${dest}: ${errorText(err)}`);
      }
      if (op === 'move') repointCurrentFile(ctx, dest);
      return success(dest);
    },
  };
}

/**
 * LINKRENAME: hard link, else symbolic link, else copy (documented behaviour; the original only
 * copies). The argument is split on single spaces and its first word is the destination.
 */
const linkRenameTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    const src = await sourceFile(ctx, type);
    if (typeof src !== 'string') return src;
    const first = toSlashes(pipelineA(argument, ctx).text).split(' ')[0] ?? '';
    if (first === '') return failure(`${type}: no destination path given`);
    const dest = resolveTaskPath(ctx, first);
    try {
      await mkdir(dirname(dest), { recursive: true });
      await unlink(dest).catch(() => undefined); // the destination is replaced, as a copy would
      try {
        await link(src, dest);
      } catch {
        try {
          await symlink(src, dest);
        } catch {
          await copyFile(src, dest);
        }
      }
    } catch (err) {
      return failure(`${type}: cannot link or copy ${src} to ${dest}: ${errorText(err)}`);
    }
    repointCurrentFile(ctx, dest);
    return success(dest);
  },
};

/** RENAME: no disk operation; the current file becomes the given path. */
const renameTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    const target = targetArgument(argument, ctx);
    if (target === '') return failure(`${type}: no path given`);
    const dest = resolveTaskPath(ctx, target);
    repointCurrentFile(ctx, dest);
    return success(dest);
  },
};

/** DELETE: deletes the current file; a file already gone is a warning, any other error a failure `f`. */
const deleteTask: TaskImplementation = {
  async run({ type, ctx }) {
    const file = ctx.currentFile;
    if (!file) {
      ctx.logger.warn(`${type}: the transfer has no current file; nothing deleted`);
      return warning();
    }
    try {
      await unlink(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        ctx.logger.warn(`${type}: ${file} does not exist; nothing deleted`);
        return warning();
      }
      return failure(`${type}: cannot delete ${file}: ${errorText(err)}`, ErrorCode.FileNotFound);
    }
    return success();
  },
};

/** The file family, by type name. */
export const fileTasks: Record<string, TaskImplementation> = {
  /** Raw argument (no substitution) naming a directory. */
  COPY: makeTransferTask(intoDirectory(true), 'copy'),
  /** Full destination path; the current file stays the source. */
  COPYRENAME: makeTransferTask(fullPath, 'copy'),
  MOVE: makeTransferTask(intoDirectory(false), 'move'),
  MOVERENAME: makeTransferTask(fullPath, 'move'),
  LINKRENAME: linkRenameTask,
  RENAME: renameTask,
  DELETE: deleteTask,
};
