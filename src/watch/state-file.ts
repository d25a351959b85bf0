/**
 * The state file (filewatcher.md §4.1): read at start, written after each scan that changed
 * something and before every transfer order (docs/decisions: exactly once). Writes are atomic
 * and durable: a temporary file in the same directory, fsync, rename, fsync of the directory;
 * a kill -9 leaves either the old or the new content, never a mix.
 */
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { itemsFromJson, itemsToJson, parseItemsJson, type FileItem } from './item.js';

export interface StateLoad {
  items: Map<string, FileItem>;
  /** Why the file could not be used (the watcher then starts empty); null when it was read or absent. */
  problem: string | null;
}

/** Reads the state file; a missing file is an empty state, a malformed one is kept aside and reported. */
export async function loadState(file: string): Promise<StateLoad> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { items: new Map(), problem: null };
    return { items: new Map(), problem: `cannot read the state file ${file}: ${(err as Error).message}` };
  }
  if (text.trim() === '') return { items: new Map(), problem: null };
  try {
    return { items: itemsFromJson(parseItemsJson(text), file), problem: null };
  } catch (err) {
    // Kept for the operator (it may say which files were sent); the watcher starts empty as the original does.
    const aside = `${file}.bad-${Date.now()}`;
    await rename(file, aside).catch(() => undefined);
    return { items: new Map(), problem: `the state file ${file} is not valid JSON of a FileWatcher (${(err as Error).message}); kept as ${basename(aside)}, starting with an empty state` };
  }
}

/** Writes `items` durably; throws on failure (full disk...), leaving the previous file intact. */
export async function saveState(file: string, items: Iterable<FileItem>): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${process.pid}.tmp`);
  try {
    const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
    try {
      await fh.writeFile(itemsToJson(items));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  const d = await open(dir, constants.O_RDONLY).catch(() => undefined);
  if (d !== undefined) await d.sync().catch(() => undefined).finally(() => d.close());
}
