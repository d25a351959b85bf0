/**
 * The file of a transfer order this host sends, under the one file policy (src/fs/file-policy.ts):
 * relative to the rule's send directory, or absolute only inside the directories the host serves.
 * Refusals are TransferErrors with FileNotAllowed (`a`), whose message names only what the order
 * gave.
 */
import { stat } from 'node:fs/promises';
import type { DirectoryConfig } from '../config/index.js';
import { resolvePolicyFile, servedDirectories, type FilePolicyRoots } from '../fs/file-policy.js';
import { isPathNotAllowed } from '../fs/safe-path.js';
import { ErrorCode } from '../model/error-code.js';
import { isSendMode, type Rule } from '../model/rule.js';
import { R66Error } from '../model/r66-error.js';
import type { TransferRecord } from '../model/transfer.js';
import { ruleDirectories } from '../transfer/placement.js';

/**
 * Who named the file decides where it may be (issue 34 item 4), the policy's two cases:
 * - a LOCAL submission (CLI send/msend/asend/masend, the TRANSFER task): any file the process can
 *   read, as the original; the name still goes through the policy (relative names below the rule's
 *   send directory, `..` and NUL refused), with `/` as the allowed root;
 * - a REMOTE one (REST v1/v2, the web pages, the FileWatcher): the host's directories plus
 *   `directory/readabledirs` of server.xml/client.xml ({@link remoteReadable}).
 */
export const ANY_READABLE_FILE: readonly string[] = ['/'];

/** The extra directories a remote submission may name (`directory/readabledirs`). */
export function remoteReadable(dirs: DirectoryConfig): readonly string[] {
  return dirs.readable ?? [];
}

/**
 * The policy's roots for a rule on this host: its send directory, and every directory the host
 * serves, with `extra` (TransferOrdersOptions.extraServed).
 */
export function sendRoots(rule: Rule, dirs: DirectoryConfig, extra: readonly string[] = []): FilePolicyRoots {
  return memoRoots('send', rule, dirs, extra, () => {
    const r = ruleDirectories(rule, dirs);
    return { base: r.out, allowed: servedDirectories(dirs, r.in, r.out, r.work, r.arch, ...extra) };
  });
}

/** The policy's roots for a rule's receive side (files received, archived, in work). */
export function receiveRoots(rule: Rule, dirs: DirectoryConfig): FilePolicyRoots {
  return memoRoots('receive', rule, dirs, [], () => {
    const r = ruleDirectories(rule, dirs);
    return { base: r.in, allowed: servedDirectories(dirs, r.in, r.out, r.work, r.arch) };
  });
}

/**
 * Roots already computed, by every value they are made of: the rule's four directories, the host's
 * directories, `extra` and the working directory (path.resolve's base for a relative one). A batch
 * of orders of one rule (masend: thousands of files) computes its roots once instead of eight
 * path.resolve() per file, the largest part of masend's CPU per file. The key is the whole input,
 * so a changed rule or configuration gets its own roots; the roots are frozen, being shared. Only
 * the roots are remembered: every file is still checked by the policy, links included.
 */
const rootsMemo = new Map<string, FilePolicyRoots>();
/** A host has a few rules; beyond this many roots the memo starts again (no growth without bound). */
const ROOTS_MEMO_MAX = 64;

function memoRoots(side: 'send' | 'receive', rule: Rule, dirs: DirectoryConfig, extra: readonly string[], make: () => FilePolicyRoots): FilePolicyRoots {
  const key = [side, rule.sendPath, rule.recvPath, rule.workPath, rule.archivePath, dirs.serverHome, dirs.in, dirs.out, dirs.work, dirs.arch, process.cwd(), ...extra].join('\0');
  let roots = rootsMemo.get(key);
  if (roots === undefined) {
    const made = make();
    roots = Object.freeze({ base: made.base, allowed: Object.freeze([...made.allowed]) });
    if (rootsMemo.size >= ROOTS_MEMO_MAX) rootsMemo.clear();
    rootsMemo.set(key, roots);
  }
  return roots;
}

/**
 * Checks the file an order sends and returns its absolute path and size (-1 when it does not
 * exist yet: a submission may name a file that appears before its start). The name is taken
 * literally (a submission stores it; wildcards were expanded by the caller, each match checked
 * here). `knownSize`: the size the caller already read; `extra`: see sendRoots(). Throws an R66Error FileNotAllowed when the policy refuses it.
 */
export async function resolveOrderFile(rule: Rule, dirs: DirectoryConfig, name: string, knownSize?: number, extra?: readonly string[]): Promise<{ path: string; size: number }> {
  let file: string | undefined;
  try {
    file = await resolvePolicyFile(name, sendRoots(rule, dirs, extra), { wildcards: false });
  } catch (err) {
    if (isPathNotAllowed(err)) throw policyRefusal(err);
    throw err;
  }
  const abs = file as string;
  // A size the caller read (masend's listing) spares a second stat.
  if (knownSize !== undefined) return { path: abs, size: knownSize };
  const st = await stat(abs).catch(() => undefined);
  return { path: abs, size: st !== undefined && st.isFile() ? st.size : -1 };
}

/**
 * The file of a row a remote editor writes (REST v1's table editor), when this host will send it
 * (its own request in a send mode): checked as an order's file, with `extra` the editor's
 * directories (remoteReadable). The server's engine runs every row it finds with any readable
 * file (local submissions' rows included), so a row is checked when written, here for v1's.
 * `rule` undefined (not known yet): the global directories.
 */
export async function checkRowFile(
  row: Pick<TransferRecord, 'filename' | 'originalName' | 'mode' | 'requester'>, rule: Rule | undefined, dirs: DirectoryConfig, ownIds: readonly string[], extra: readonly string[],
): Promise<void> {
  if (!ownIds.includes(row.requester) || !isSendMode(row.mode)) return;
  const name = row.filename || row.originalName;
  if (name === '') return;
  await resolveOrderFile(rule ?? GLOBAL_DIRECTORIES_RULE, dirs, name, 0, extra);
}

/** A rule with no directory of its own (ruleDirectories takes the global ones). */
const GLOBAL_DIRECTORIES_RULE = { recvPath: '', sendPath: '', archivePath: '', workPath: '' } as Rule;

/** A policy refusal as the order's R66Error (FileNotAllowed; HTTP 403). */
export function policyRefusal(err: R66Error): R66Error {
  return new R66Error(ErrorCode.FileNotAllowed, err.message, { cause: err, details: { reason: 'fileNotAllowed' } });
}
