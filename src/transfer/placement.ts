/**
 * Where a transfer's file lives on this host (tasks.md §1.3): the rule's directories (empty rule
 * path = the global one), the sender's file resolved inside the send directory (wildcards, safe
 * path), the receiver's temporary `.r66` file in the work directory, and its final place in the
 * receive directory. Every file operation goes through the engine's TransferFileSystem
 * (file/storage.ts), the first argument of the functions that touch a file.
 */
import { randomInt } from 'node:crypto';
import path from 'node:path';
import type { DirectoryConfig } from '../config/index.js';
import { ErrorCode } from '../model/error-code.js';
import { isSendMode, isThroughMode, type Rule, type TransferMode } from '../model/rule.js';
import { R66Error } from '../model/r66-error.js';
import { fileErrorText } from '../net/errors.js';
import { resolvePolicyFile } from '../fs/file-policy.js';
import { isPathNotAllowed, pathNotAllowed } from '../fs/safe-path.js';
import type { CreateOptions, TransferFileSystem, TransferStorage } from './file/storage.js';

/** Absolute directories of one rule on this host. */
export interface RuleDirectories {
  home: string;
  in: string;
  out: string;
  work: string;
  arch: string;
}

/** The original's limit on file names (`openr66.filename.maxlength`), r66-protocol.md §12. */
export const MAX_FILENAME_LENGTH = 255;

export function ruleDirectories(rule: Rule, dirs: DirectoryConfig): RuleDirectories {
  const pick = (virtual: string, global: string): string => (virtual.trim().length > 0 ? path.join(dirs.serverHome, virtual) : global);
  return {
    home: dirs.serverHome,
    in: pick(rule.recvPath, dirs.in),
    out: pick(rule.sendPath, dirs.out),
    work: pick(rule.workPath, dirs.work),
    arch: pick(rule.archivePath, dirs.arch),
  };
}

/** Virtual path of an absolute path under the home, as the original names files on the wire (`/out/a.txt`). */
export function virtualPath(home: string, abs: string): string {
  const rel = path.relative(home, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return abs;
  return '/' + rel.split(path.sep).join('/');
}

/** Base name after the last `/` or `\` (the name may come from another system). */
export function baseName(name: string): string {
  const cut = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  return cut >= 0 ? name.slice(cut + 1) : name;
}

function notFound(name: string, why = 'does not exist'): R66Error {
  return new R66Error(ErrorCode.FileNotFound, `File not found: ${name} ${why}`);
}

/**
 * The requested host as sender: `requested` resolved inside the rule's send directory under the
 * file policy (src/fs/file-policy.ts). A virtual path (`/out/a.txt`) is taken below the home; a
 * wildcard in the last segment picks the first matching file in name order, every match having
 * been checked after link resolution like a plain name. Missing -> FileNotFound, outside ->
 * FileNotAllowed.
 */
export async function resolveSendFile(files: TransferFileSystem, dirs: RuleDirectories, requested: string): Promise<string> {
  const name = requested.startsWith('/') || requested.startsWith('\\') ? path.join(dirs.home, requested) : requested;
  let candidate: string | undefined;
  try {
    candidate = await resolvePolicyFile(name, { base: dirs.out, allowed: [] }, { list: (dir) => files.list(dir) });
  } catch (err) {
    if (isPathNotAllowed(err)) throw pathNotAllowed(requested, 'lies outside the rule directory');
    throw err;
  }
  if (candidate === undefined) throw notFound(requested, 'matches no file');
  if ((await files.fileSize(candidate)) === undefined) throw notFound(requested);
  return candidate;
}

/** The requester's file to send, as statFileToSend() found it: where it is and its size. */
export interface FileToSend {
  path: string;
  size: number;
}

/**
 * The requester as sender: its own file under the file policy (relative to the rule's send
 * directory, or absolute inside the rule's directories or `served`, the host's), and its size.
 */
export async function statFileToSend(files: TransferFileSystem, dirs: RuleDirectories, file: string, served: readonly string[] = []): Promise<FileToSend> {
  // Outside: resolvePolicyFile's FileNotAllowed, as it is.
  const abs = (await resolvePolicyFile(file, { base: dirs.out, allowed: [dirs.in, dirs.out, dirs.work, dirs.arch, ...served] }, { wildcards: false })) as string;
  const size = await files.fileSize(abs);
  if (size === undefined) throw notFound(file);
  return { path: abs, size };
}

/**
 * Size of the file `file` once the pre-tasks ran (they may have changed or replaced it); none
 * there fails as a stat() would, with ENOENT (the transfer's FileNotFound, session.ts toR66Error).
 */
export async function sizeAfterPreTasks(files: TransferFileSystem, file: string): Promise<number> {
  const size = await files.fileSize(file);
  if (size === undefined) throw Object.assign(new Error(`ENOENT: no such file, stat '${file}'`), { code: 'ENOENT', syscall: 'stat', path: file });
  return size;
}

/**
 * True when the sender's file is looked for only after its pre-tasks: a send-through mode (5, 7)
 * run without a stream, by a rule with sender pre-tasks. They may produce the file (S3GET fetches
 * it and leaves through mode, tasks.md S3GET), so its absence before them is no error yet.
 */
export function senderFileAfterPreTasks(rule: Rule, mode: TransferMode, withStream: boolean): boolean {
  return !withStream && isSendMode(mode) && isThroughMode(mode) && rule.sPreTasks.length > 0;
}

/**
 * Temporary name of a received file: `<id>_<random>_<basename>.r66` (`xx_` in front of a short
 * id), the base name cut from the left so the whole fits the name length limit minus 55.
 */
export function temporaryName(specialId: bigint, originalName: string): string {
  let id = `${specialId}`;
  if (id.length < 3) id = `xx_${id}`;
  const prefix = `${id}_${randomInt(0, 1_000_000_000)}_`;
  let base = baseName(originalName).replace(/[\0/\\]/g, '_');
  if (base === '' || base === '.' || base === '..') base = 'file';
  const room = Math.max(1, MAX_FILENAME_LENGTH - 55 - prefix.length - 4);
  if (base.length > room) base = base.slice(base.length - room);
  return `${prefix}${base}.r66`;
}

/** Final name in the receive directory: the temporary name without `.r66` (tasks.md §1.3). */
export function finalPath(dirs: RuleDirectories, tempFile: string): string {
  return path.join(dirs.in, path.basename(tempFile).replace(/\.r66$/, ''));
}

/** Creates a directory for a file about to be written; a failure is the transfer's error. */
export async function ensureDirectory(files: TransferFileSystem, dir: string): Promise<void> {
  try {
    await files.makeDirectory(dir);
  } catch (err) {
    // The partner may read this text: no server path (issue 21).
    throw new R66Error(ErrorCode.Internal, `cannot create directory ${path.basename(dir)}: ${fileErrorText(err as NodeJS.ErrnoException)}`);
  }
}

/**
 * Creates the work file `file` (exclusive) for writing. The directory is created only when the
 * creation says it is missing: a mkdir per file was one system call in ten of a small transfer.
 * `synced` and `direct`: how the receiver wants it written (CreateOptions; receiver.ts).
 */
export async function createWorkFile(files: TransferFileSystem, file: string, opts: Omit<CreateOptions, 'mode'> = { synced: false, direct: false }): Promise<TransferStorage> {
  // Created with the received-file mode: the final file is this one, renamed (no chmod later).
  const create = (): Promise<TransferStorage> => files.create(file, { ...opts, mode: receivedFileMode });
  try {
    return await create();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await ensureDirectory(files, path.dirname(file));
    return create();
  }
}

/** Permission bits of a received file (server.xml security/receivedfilemode; the umask still applies). */
let receivedFileMode = 0o640;

/** Sets the mode of the files received from now on (the transfer service does at start). */
export function setReceivedFileMode(mode: number): void {
  receivedFileMode = mode;
}

/** Moves the received file to its final place (copy + delete across file systems). */
export async function moveToFinal(files: TransferFileSystem, from: string, to: string): Promise<void> {
  try {
    // The receive directory normally exists: it is created only when the rename says it is missing.
    await files.rename(from, to).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      await ensureDirectory(files, path.dirname(to));
      await files.rename(from, to);
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') {
      // Names only: the partner reads this text, and server paths are not its business (issue 21).
      throw new R66Error(ErrorCode.FinalOp, `cannot move ${path.basename(from)} to ${path.basename(to)}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    try {
      await files.copy(from, to);
      await files.remove(from);
    } catch (copyErr) {
      throw new R66Error(ErrorCode.FinalOp, `cannot copy ${path.basename(from)} to ${path.basename(to)}: ${fileErrorText(copyErr as NodeJS.ErrnoException)}`);
    }
  }
}

/** Removes a work file, ignoring a missing one. */
export async function removeQuietly(files: TransferFileSystem, file: string | null): Promise<void> {
  if (file !== null) await files.remove(file).catch(() => undefined);
}
