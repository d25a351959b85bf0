/**
 * Candidate files of one scan (filewatcher.md §3.1): regular files of each directory, in order,
 * whose absolute path the regular expression is found in (directories are absolute once the
 * configuration is read), and whose size reaches minimalSize; with recursion, sub-directories after
 * the files of a directory. Symbolic links to directories are not followed (docs/filewatcher.md).
 *
 * Cost (a directory of 100,000 files already sent, docs/filewatcher.md "Performance"): the listing
 * comes with the entries' types (one getdents per 32 KB, no stat to tell files from directories);
 * a known file the watcher does not need to look at in this scan (`skip`) costs one map look-up by
 * its name, no path, no stat, no object; only the other entries are stat'ed (synchronously, in
 * slices that yield to the event loop: a promise per stat costs several times more) and filtered.
 * Nothing is sorted here: the watcher sorts the few files it acts on.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { resolve } from 'node:path';
import { setImmediate as yieldLoop } from 'node:timers/promises';

export interface Candidate {
  /** Absolute path with `/` separators: the state map key (and what the regex is matched against). */
  key: string;
  size: number;
  mtimeMs: number;
  /** Rank of its directory in this scan's walk (directories in order, sub-directories after). */
  dirRank: number;
}

export interface ScanFilter {
  regex: RegExp | null;
  minimalSize: number;
  recursive: boolean;
}

/** Directories that could not be listed in this scan, by path, with the reason. */
export type ScanProblems = Map<string, string>;

/**
 * Called once per directory listed (its key): null, or a test called for every regular file of it
 * (by name) before it is stat'ed: true when the watcher has what it needs of this file for this
 * scan (it notes the file as present itself), so it is neither stat'ed nor returned.
 */
export type SkipStat = (dir: string) => ((name: string) => boolean) | null;

/** Entries handled between two yields to the event loop. */
const SLICE = 4000;

export async function scanDirectories(dirs: readonly string[], filter: ScanFilter, problems: ScanProblems, skip: SkipStat = () => null): Promise<Candidate[]> {
  const out: Candidate[] = [];
  let sinceYield = 0;
  let dirRank = 0;
  // `dir` is absolute with `/` separators once normalised: a file's key is then `dir/name`, with no
  // path resolution per file.
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      problems.set(dir, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
      return;
    }
    const subDirs: string[] = [];
    const rank = dirRank++;
    const skipName = skip(dir);
    for (const e of entries) {
      if (++sinceYield >= SLICE) {
        sinceYield = 0;
        await yieldLoop();
      }
      const file = e.isFile();
      if (file && skipName !== null && skipName(e.name)) continue;
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (filter.recursive) subDirs.push(path);
        continue;
      }
      // A symbolic link to a file counts as that file; one to a directory is never followed: it
      // could lead anywhere (`ln -s /etc etcdir`) or back into the tree (a loop). Issue 32.
      if (!file && !e.isSymbolicLink()) continue;
      const st = statSync(path, { throwIfNoEntry: false });
      if (st === undefined) continue; // removed meanwhile (or a dangling link)
      if (st.isDirectory()) continue;
      if (!st.isFile()) continue;
      if (!file && skipName !== null && skipName(e.name)) continue;
      if (filter.regex !== null && !filter.regex.test(path)) continue;
      if (filter.minimalSize > 0 && st.size < filter.minimalSize) continue;
      out.push({ key: path, size: st.size, mtimeMs: Math.trunc(st.mtimeMs), dirRank: rank });
    }
    // The files of a directory come in the listing's order: the watcher sorts those it acts on.
    subDirs.sort();
    for (const d of subDirs) await walk(d);
  };
  for (const d of dirs) await walk(keyOf(d).replace(/\/+$/, '') || '/');
  return out;
}

/** The state key of a path: absolute, `\` replaced by `/`. */
export function keyOf(path: string): string {
  return resolve(path).replace(/\\/g, '/');
}

/** The configured regex (Java syntax, searched, not anchored); throws a clear Error when invalid. */
export function compileRegex(text: string | undefined): RegExp | null {
  if (text === undefined || text === '') return null;
  try {
    return new RegExp(text.replace(/\\A/g, '^').replace(/\\[zZ]/g, '$'));
  } catch (err) {
    throw new Error(`invalid regex ${JSON.stringify(text)}: ${(err as Error).message}`);
  }
}
