/**
 * Resolution of a file name requested by a partner inside the directories a rule allows.
 *
 * Every name that comes from the wire goes through here (design.md §4): a `..` segment, a NUL byte,
 * an absolute path outside the allowed roots, or a symbolic link that leads outside them is
 * refused with FileNotAllowed (`a`), the code the original answers for a file outside its
 * directory (r66-protocol.md §9.2 step 9). Nothing is followed before it has been checked.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';

/**
 * A requested name that may not be used: the domain error FileNotAllowed (`a` on the wire, 403 in
 * REST), the name as given in `details.requested`.
 */
export function pathNotAllowed(requested: string, reason: string): R66Error {
  return new R66Error(ErrorCode.FileNotAllowed, `File not allowed: ${JSON.stringify(requested)} ${reason}`, { details: { reason: 'fileNotAllowed', requested } });
}

/** True for a refusal made by {@link pathNotAllowed}. */
export function isPathNotAllowed(err: unknown): err is R66Error {
  return err instanceof R66Error && err.details.reason === 'fileNotAllowed';
}

/**
 * True when `candidate` is `root` itself or lies below it. Both must be absolute and normalised
 * (path.resolve's output): then a prefix test ending at a separator is exact, and cheap enough for
 * every file of every transfer.
 */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root) && (root.endsWith(path.sep) || candidate.charCodeAt(root.length) === SEP);
}

const SEP = path.sep.charCodeAt(0);

/**
 * Resolves `requested` against `baseDir` and returns the absolute path, refusing escapes.
 *
 * - a relative name is taken below `baseDir`;
 * - an absolute name is accepted only when it lies inside `baseDir` or one of `extraRoots`
 *   (e.g. the host's other directories);
 * - `..` segments are refused outright, even when they would stay inside: a partner has no reason
 *   to send them and refusing them keeps the rule simple to audit;
 * - the deepest existing ancestor of the result is resolved with realpath and must still lie inside
 *   the real root, so a symbolic link cannot lead out.
 *
 * Cost: this runs for every file of every transfer and submission (masend: thousands in a row), so
 * the look-ups are synchronous calls (an awaited realpath is a thread-pool round trip, about 70 µs
 * of CPU against 5 µs for an lstat); a name that is not a link is resolved as the real path of its
 * directory plus its own name, and the real paths of directories are remembered until the end of the
 * current event-loop turn only (a batch of submissions shares them, nothing is kept longer).
 */
export async function resolveInside(baseDir: string, requested: string, extraRoots: readonly string[] = []): Promise<string> {
  return resolveInsideSync(baseDir, requested, extraRoots);
}

/** {@link resolveInside}, synchronous. */
export function resolveInsideSync(baseDir: string, requested: string, extraRoots: readonly string[] = []): string {
  if (requested.includes('\0')) throw pathNotAllowed(requested, 'contains a NUL byte');
  if (DOTDOT_SEGMENT.test(requested)) throw pathNotAllowed(requested, "contains a '..' segment");
  const base = resolved(baseDir);
  const candidate = path.isAbsolute(requested) ? path.resolve(requested) : path.resolve(base, requested);
  let root: string | undefined = isInside(base, candidate) ? base : undefined;
  for (let i = 0; root === undefined && i < extraRoots.length; i++) {
    const r = resolved(extraRoots[i] as string);
    if (isInside(r, candidate)) root = r;
  }
  if (root === undefined) throw pathNotAllowed(requested, 'lies outside the rule directory');
  const realRoot = realDirectory(root) ?? root;
  const realCandidate = realpathOfExistingPart(candidate);
  if (!isInside(realRoot, realCandidate)) throw pathNotAllowed(requested, 'leads outside the rule directory through a link');
  return candidate;
}

/** A `..` segment, between separators (`/` or `\\`) or at either end: one test, no array of segments per name. */
const DOTDOT_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

/** path.resolve() of the few directory names the roots are made of, remembered (a pure function). */
const resolvedNames = new Map<string, string>();
function resolved(dir: string): string {
  let r = resolvedNames.get(dir);
  if (r === undefined) {
    r = path.resolve(dir);
    if (resolvedNames.size >= 256) resolvedNames.clear();
    resolvedNames.set(dir, r);
  }
  return r;
}

/** Real paths of directories looked up during the current event-loop turn (then forgotten). */
const realDirs = new Map<string, string | null>();
let forgetScheduled = false;

/** realpath of directory `dir` (undefined when it cannot be resolved), remembered for this turn. */
function realDirectory(dir: string): string | undefined {
  let real = realDirs.get(dir);
  if (real === undefined) {
    try {
      real = realpathSync.native(dir);
    } catch {
      real = null;
    }
    realDirs.set(dir, real);
    if (!forgetScheduled) {
      forgetScheduled = true;
      setImmediate(() => {
        realDirs.clear();
        forgetScheduled = false;
      }).unref();
    }
  }
  return real ?? undefined;
}

/** realpath of the longest existing prefix of `p`, with the missing tail appended unchanged. */
function realpathOfExistingPart(p: string): string {
  const parent = path.dirname(p);
  if (parent === p) return realDirectory(p) ?? p;
  let st;
  try {
    st = lstatSync(p, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  if (st !== undefined) {
    if (st.isSymbolicLink()) {
      try {
        return realpathSync.native(p);
      } catch {
        // A link that leads nowhere: taken as missing, like the part below it.
      }
    } else {
      // Not a link: its real path is its directory's plus its own name, appended as is (`p` is
      // path.resolve's output: path.join would normalise the whole path again, for every file).
      const realParent = realDirectory(parent);
      if (realParent !== undefined) return childPath(realParent, path.basename(p));
    }
  }
  return path.join(realpathOfExistingPart(parent), path.basename(p));
}

/** `dir` + separator + `name`, for a normalised absolute `dir` and a plain `name` (no separator, not `.` or `..`). */
function childPath(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}
