/**
 * Resolution of a file name requested by a partner inside the directories a rule allows.
 *
 * Every name that comes from the wire goes through here (design.md §4): a `..` segment, a NUL byte,
 * an absolute path outside the allowed roots, or a symbolic link that leads outside them is
 * refused with FileNotAllowed (`a`), the code the original answers for a file outside its
 * directory (r66-protocol.md §9.2 step 9). Nothing is followed before it has been checked.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';

/** A requested name that may not be used; `code` is what goes on the wire. */
export class PathNotAllowedError extends Error {
  readonly code: ErrorCodeInfo = ErrorCode.FileNotAllowed;
  constructor(readonly requested: string, reason: string) {
    super(`File not allowed: ${JSON.stringify(requested)} ${reason}`);
    this.name = 'PathNotAllowedError';
  }
}

/** True when `candidate` is `root` itself or lies below it (both absolute and normalised). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

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
 */
export async function resolveInside(baseDir: string, requested: string, extraRoots: readonly string[] = []): Promise<string> {
  if (requested.includes('\0')) throw new PathNotAllowedError(requested, 'contains a NUL byte');
  const segments = requested.split(/[\\/]+/);
  if (segments.includes('..')) throw new PathNotAllowedError(requested, "contains a '..' segment");
  const roots = [path.resolve(baseDir), ...extraRoots.map((r) => path.resolve(r))];
  const candidate = path.isAbsolute(requested) ? path.resolve(requested) : path.resolve(roots[0] as string, requested);
  const root = roots.find((r) => isInside(r, candidate));
  if (root === undefined) throw new PathNotAllowedError(requested, 'lies outside the rule directory');
  const realRoot = await realpathOrSelf(root);
  const realCandidate = await realpathOfExistingPart(candidate);
  if (!isInside(realRoot, realCandidate)) throw new PathNotAllowedError(requested, 'leads outside the rule directory through a link');
  return candidate;
}

async function realpathOrSelf(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return p;
  }
}

/** realpath of the longest existing prefix of `p`, with the missing tail appended unchanged. */
async function realpathOfExistingPart(p: string): Promise<string> {
  let existing = p;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = await realpath(existing);
      return tail.length === 0 ? real : path.join(real, ...tail.reverse());
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return p;
      tail.push(path.basename(existing));
      existing = parent;
    }
  }
}
