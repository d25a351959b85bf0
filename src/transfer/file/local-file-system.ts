/**
 * This host's file system behind the storage seam (storage.ts TransferFileSystem): node:fs, the
 * files themselves through LocalFile (positional I/O, O_DSYNC and O_DIRECT where they pay). The
 * engine's files unless its options name another (TransferEngineOptions.files).
 */
import { copyFile, mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import { LocalFile } from './local-file.js';
import type { CreateOptions, TransferFileSystem, TransferStorage } from './storage.js';

export class LocalFileSystem implements TransferFileSystem {
  async fileSize(file: string): Promise<number | undefined> {
    const st = await stat(file).catch(() => undefined);
    return st?.isFile() ? st.size : undefined;
  }

  list(dir: string): Promise<string[]> {
    return readdir(dir).catch(() => []);
  }

  openForReading(file: string): Promise<TransferStorage> {
    return LocalFile.openForReading(file);
  }

  create(file: string, opts: CreateOptions): Promise<TransferStorage> {
    return LocalFile.create(file, opts);
  }

  openForWriting(file: string): Promise<TransferStorage> {
    return LocalFile.openForWriting(file);
  }

  rename(from: string, to: string): Promise<void> {
    return rename(from, to);
  }

  copy(from: string, to: string): Promise<void> {
    return copyFile(from, to);
  }

  remove(file: string): Promise<void> {
    return unlink(file);
  }

  async makeDirectory(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
  }
}

/** The host's file system (stateless: one instance serves every engine). */
export const localFileSystem: TransferFileSystem = new LocalFileSystem();
