/**
 * TAR, ZIP (tasks.md §8): delay 2 archives a directory, 3 archives listed files, anything else
 * extracts. COMPRESS: Zstandard compress (or decompress with delay 1) the current file.
 *
 * Extraction writes only regular files, and only inside the target directory: an entry whose name
 * holds `..` fails the task (the original does not check), a leading `/` is read relative to the
 * target (as the original's own archives are written), and nothing is written through a symbolic
 * link that leads out of the target.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, realpath, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import * as yauzl from 'yauzl';
import * as yazl from 'yazl';
import { CompressStream, DecompressStream } from 'zstd-napi';
import { repointCurrentFile } from './context.js';
import { entryTarget, resolveTaskPath, toSlashes } from './paths.js';
import { pipelineA } from './substitution.js';
import { errorText, failure, success, type TaskImplementation, type TaskResult } from './task.js';

/** Regular files under `dir`, recursively, as paths relative to it with `/` separators. */
async function filesUnder(dir: string, skip: RegExp): Promise<string[]> {
  const out: string[] = [];
  const walk = async (sub: string): Promise<void> => {
    for (const e of await readdir(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(rel);
      else if (e.isFile() && !skip.test(e.name)) out.push(rel);
    }
  };
  await walk('');
  return out.sort();
}

/** Fails when the real parent of `target` is outside the real `root` (symbolic link escape). */
async function assertInside(root: string, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const realRoot = await realpath(root);
  const realParent = await realpath(dirname(target));
  if (realParent !== realRoot && !realParent.startsWith(realRoot + sep)) {
    throw new Error(`entry ${relative(root, target)} would be written outside ${root} through a symbolic link`);
  }
}

/** Checked before an archive is opened, so a bad list leaves no half-written archive. */
async function assertRegularFiles(files: string[]): Promise<void> {
  for (const f of files) if (!(await stat(f)).isFile()) throw new Error(`${f} is not a regular file`);
}

const TAR_FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

async function tarCreateFromDir(archive: string, dir: string): Promise<void> {
  const files = await filesUnder(dir, /\.tar$/i);
  await mkdir(dirname(archive), { recursive: true });
  // Entry names get a leading `/` as the original writes them; GNU long names via pax headers.
  if (files.length === 0) return writeFile(archive, Buffer.alloc(1024)); // an empty archive: two zero blocks
  await tar.c({ file: archive, cwd: dir, portable: true, onWriteEntry: (e) => { e.path = `/${e.path}`; } }, files);
}

async function tarCreateFromFiles(archive: string, files: string[]): Promise<void> {
  await assertRegularFiles(files);
  await mkdir(dirname(archive), { recursive: true });
  const pack = new tar.Pack({ portable: true, onWriteEntry: (e) => { e.path = basename(e.path); } });
  const done = pipeline(pack, createWriteStream(archive));
  for (const f of files) pack.add(f);
  pack.end();
  await done;
}

async function tarExtract(archive: string, dir: string): Promise<void> {
  const names: string[] = [];
  await tar.t({ file: archive, onReadEntry: (e) => { if (TAR_FILE_TYPES.has(e.type)) names.push(e.path); } });
  for (const name of names) if (entryTarget(dir, name) === null) throw new Error(`archive entry "${name}" would leave ${dir}`);
  await mkdir(dir, { recursive: true });
  const problems: string[] = [];
  await tar.x({
    file: archive,
    cwd: dir,
    // Only regular files; directories are created as parents, links and devices are ignored.
    filter: (_path, entry) => 'type' in entry && TAR_FILE_TYPES.has(entry.type),
    onwarn: (code, message) => { if (code !== 'TAR_ENTRY_INFO') problems.push(`${code}: ${String(message)}`); },
  });
  if (problems.length) throw new Error(problems.join('; '));
}

function zipWrite(archive: string, entries: Array<[file: string, name: string]>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [file, name] of entries) zip.addFile(file, name, { compress: true });
  const done = pipeline(zip.outputStream, createWriteStream(archive));
  zip.end();
  return done;
}

async function zipCreateFromDir(archive: string, dir: string): Promise<void> {
  const files = await filesUnder(dir, /\.zip$/i);
  await mkdir(dirname(archive), { recursive: true });
  await zipWrite(archive, files.map((f) => [join(dir, f), f]));
}

async function zipCreateFromFiles(archive: string, files: string[]): Promise<void> {
  await assertRegularFiles(files);
  await mkdir(dirname(archive), { recursive: true });
  await zipWrite(archive, files.map((f) => [f, basename(f)]));
}

async function zipExtract(archive: string, dir: string): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((res, rej) =>
    yauzl.open(archive, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true }, (err, z) => (err || !z ? rej(err ?? new Error('cannot open')) : res(z))),
  );
  try {
    await mkdir(dir, { recursive: true });
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith('/')) return zip.readEntry(); // directory entries skipped
        const target = entryTarget(dir, name);
        if (target === null) return reject(new Error(`archive entry "${name}" would leave ${dir}`));
        assertInside(dir, target)
          .then(() => new Promise<NodeJS.ReadableStream>((res, rej) => zip.openReadStream(entry, (err, s) => (err || !s ? rej(err ?? new Error('no stream')) : res(s)))))
          .then((stream) => pipeline(stream, createWriteStream(target)))
          .then(() => zip.readEntry(), reject);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

interface ArchiveOps {
  fromDir(archive: string, dir: string): Promise<void>;
  fromFiles(archive: string, files: string[]): Promise<void>;
  extract(archive: string, dir: string): Promise<void>;
  /** TAR splits on single spaces, ZIP on any white space (the original's difference). */
  split(text: string): string[];
}

function archiveTask(ops: ArchiveOps): TaskImplementation {
  return {
    async run({ type, argument, delay, ctx }): Promise<TaskResult> {
      const words = ops.split(pipelineA(argument, ctx).text).map((w) => resolveTaskPath(ctx, w));
      const [archive, ...rest] = words;
      if (!archive || rest.length === 0) return failure(`${type}: expected an archive path then ${delay === 3 ? 'files' : 'a directory'}, got "${argument}"`);
      const dir = rest[0] as string;
      try {
        if (delay === 2) await ops.fromDir(archive, dir);
        else if (delay === 3) await ops.fromFiles(archive, rest);
        else await ops.extract(archive, dir);
      } catch (err) {
        const what = delay === 2 ? `archive ${dir} into ${archive}` : delay === 3 ? `archive ${rest.join(' ')} into ${archive}` : `extract ${archive} into ${dir}`;
        return failure(`${type}: cannot ${what}: ${errorText(err)}`);
      }
      return success();
    },
  };
}

const tarTask = archiveTask({
  fromDir: tarCreateFromDir,
  fromFiles: tarCreateFromFiles,
  extract: tarExtract,
  split: (t) => t.split(' ').filter((w) => w !== ''),
});

const zipTask = archiveTask({
  fromDir: zipCreateFromDir,
  fromFiles: zipCreateFromFiles,
  extract: async (archive, dir) => {
    await mkdir(dir, { recursive: true });
    await zipExtract(archive, dir);
  },
  split: (t) => t.split(/\s+/).filter((w) => w !== ''),
});

/** COMPRESS: Zstandard (level 1) or, with delay 1, decompression; the output becomes the current file. */
const compressTask: TaskImplementation = {
  async run({ type, argument, delay, ctx }) {
    const src = ctx.currentFile;
    if (!src) return failure(`${type}: the transfer has no current file`);
    const decompress = delay === 1;
    const given = toSlashes(pipelineA(argument, ctx).text.trim());
    const out = given ? resolveTaskPath(ctx, given) : join(dirname(src), `${basename(src)}${decompress ? '.unzstd' : '.zstd'}`);
    try {
      await mkdir(dirname(out), { recursive: true });
      const codec = decompress ? new DecompressStream() : new CompressStream({ compressionLevel: 1 });
      await pipeline(createReadStream(src), codec, createWriteStream(out));
    } catch (err) {
      await unlink(out).catch(() => undefined);
      return failure(`${type}: cannot ${decompress ? 'decompress' : 'compress'} ${src} into ${out}: ${errorText(err)}`);
    }
    await unlink(src).catch((err: unknown) => ctx.logger.warn(`${type}: source ${src} not deleted: ${errorText(err)}`));
    repointCurrentFile(ctx, out);
    return success(out);
  },
};

export const archiveTasks: Record<string, TaskImplementation> = {
  TAR: tarTask,
  ZIP: zipTask,
  COMPRESS: compressTask,
};
