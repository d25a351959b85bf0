/**
 * A test host's transfer files, on either side of the storage seam (src/transfer/file/storage.ts):
 * the host's file system, or a MemoryFileSystem given to its engine. Tests put the files to send
 * and read the files received through this, so that one test body runs against both storages
 * (`describe.each(STORAGES)`).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MemoryFileSystem } from '../../src/transfer/file/memory-file-system.js';
import type { TransferFileSystem } from '../../src/transfer/file/storage.js';

/** Where a test host's transfer files live. */
export type StorageKind = 'local' | 'memory';

/** Both storages, for describe.each: `describe.each(STORAGES)('... (%s storage)', (storage) => ...)`. */
export const STORAGES: readonly StorageKind[] = ['local', 'memory'];

export interface HostFiles {
  readonly kind: StorageKind;
  /** The engine's `files` option: undefined for the host's file system (the engine's default). */
  readonly engineFiles: TransferFileSystem | undefined;
  /** Makes the host's directories (in, out, work, arch, conf). */
  makeDirectories(dirs: readonly string[]): Promise<void>;
  write(file: string, data: Buffer | string): Promise<void>;
  read(file: string): Promise<Buffer>;
  /** Names in `dir` (none when it does not exist). */
  list(dir: string): Promise<string[]>;
}

export function hostFiles(kind: StorageKind): HostFiles {
  if (kind === 'local') {
    return {
      kind,
      engineFiles: undefined,
      async makeDirectories(dirs) {
        for (const d of dirs) await mkdir(d, { recursive: true });
      },
      write: (file, data) => writeFile(file, data),
      read: (file) => readFile(file),
      list: (dir) => readdir(dir).catch(() => []),
    };
  }
  const memory = new MemoryFileSystem();
  return {
    kind,
    engineFiles: memory,
    async makeDirectories(dirs) {
      for (const d of dirs) await memory.makeDirectory(d);
    },
    async write(file, data) {
      memory.put(file, data);
    },
    async read(file) {
      return memory.contentOf(file);
    },
    list: (dir) => memory.list(dir),
  };
}

/** The content of the file received as `name` in `dir` (the receiver may prefix the transfer id). */
export async function receivedIn(files: HostFiles, dir: string, name: string): Promise<Buffer> {
  const got = (await files.list(dir)).find((f) => f === name || f.endsWith(`_${name}`));
  if (got === undefined) throw new Error(`${name} not received in ${dir}`);
  return files.read(path.join(dir, got));
}
