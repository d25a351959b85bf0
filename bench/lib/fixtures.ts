/**
 * The files every scenario moves, made once per run in a temporary folder on the disk under test.
 *
 * The large file is a random 1 MiB pattern written over and over: fast to make (no per-byte
 * randomness for 1 GiB), and still incompressible block by block, so zstd block compression, if it
 * were on, could not inflate the figures. Small files are slices of a random pool with their index
 * stamped in the first bytes, so no two files are the same.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MiB = 1024 * 1024;

export interface Fixtures {
  largeFile: string;
  largeBytes: number;
  smallDir: string;
  /** All small file names, sorted; sequential scenarios use the first smallCount. */
  smallNames: string[];
  smallBytes: number;
}

export async function makeLargeFile(path: string, bytes: number): Promise<void> {
  const pattern = randomBytes(MiB);
  // Eight copies per write: fewer system calls than 1 MiB writes, little memory.
  const chunk = Buffer.concat(Array.from({ length: 8 }, () => pattern));
  const fh = await open(path, 'w');
  try {
    let written = 0;
    while (written < bytes) {
      const n = Math.min(chunk.length, bytes - written);
      await fh.write(chunk, 0, n, written);
      written += n;
    }
  } finally {
    await fh.close();
  }
}

export function smallName(i: number): string {
  return `s${String(i).padStart(6, '0')}.dat`;
}

export async function makeSmallFiles(dir: string, count: number, size: number): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const pool = randomBytes(4 * MiB + size);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const offset = (i * 4099 * 16) % (4 * MiB);
    const content = Buffer.from(pool.subarray(offset, offset + size));
    content.writeUInt32BE(i, 0);
    const name = smallName(i);
    await writeFile(join(dir, name), content);
    names.push(name);
  }
  return names;
}

/** Makes only what the chosen scenarios need. */
export async function makeFixtures(
  root: string,
  need: { large: boolean; smallCount: number },
  sizes: { largeBytes: number; smallBytes: number },
): Promise<Fixtures> {
  mkdirSync(root, { recursive: true });
  const largeFile = join(root, 'large.bin');
  if (need.large) await makeLargeFile(largeFile, sizes.largeBytes);
  const smallDir = join(root, 'small');
  const smallNames = need.smallCount > 0 ? await makeSmallFiles(smallDir, need.smallCount, sizes.smallBytes) : [];
  return { largeFile, largeBytes: sizes.largeBytes, smallDir, smallNames, smallBytes: sizes.smallBytes };
}
