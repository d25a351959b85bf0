/**
 * The EXECJAVA plug-ins the original ships and rules may name (tasks.md §8 EXECJAVA), registered
 * under `org.svc.openr66...` (the `org.waarp.openr66...` spelling resolves to the same entry).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { TaskContext } from './context.js';
import type { ExecJavaFactory, ExecJavaPlugin } from './plugin-types.js';
import { updateInfoMap } from './transfer-info.js';
import { errorText } from './task.js';

const HASHES: Record<string, string> = { MD5: 'md5', SHA1: 'sha1', SHA256: 'sha256', SHA384: 'sha384', SHA512: 'sha512' };

/** Hex digest of a file; null when the algorithm is unknown here (MD2 has no provider in Node). */
export async function fileDigest(path: string, algorithm: string): Promise<string | null> {
  const algo = algorithm.toUpperCase();
  if (algo === 'CRC32' || algo === 'ADLER32') {
    let crc = 0;
    let a = 1;
    let b = 0;
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      if (algo === 'CRC32') crc = crc32(chunk, crc);
      else for (const byte of chunk) { a = (a + byte) % 65521; b = (b + a) % 65521; }
    }
    const value = algo === 'CRC32' ? crc >>> 0 : ((b << 16) | a) >>> 0;
    return value.toString(16).padStart(8, '0');
  }
  const name = HASHES[algo];
  if (!name) return null;
  const h = createHash(name);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) h.update(chunk);
  return h.digest('hex');
}

/** Reads `-name value` options of a plug-in argument. */
function option(args: string, name: string): string | undefined {
  const words = args.split(' ').filter((w) => w !== '');
  const i = words.findIndex((w) => w.toLowerCase() === name);
  return i >= 0 ? words[i + 1] : undefined;
}

/** `-format (+|-)<template>`: prepend/append the template (with `marker` replaced) to the information. */
export function applyInfoTemplate(info: string, format: string, marker: string, value: string): string {
  const mode = format.startsWith('+') ? '+' : '-';
  const template = (format.startsWith('+') || format.startsWith('-') ? format.slice(1) : format).split(marker).join(value);
  if (template === '') return info;
  return mode === '+' ? `${info} ${template}` : `${template} ${info}`;
}

/** Sets the information and a key of the internal map, then saves the record. Status 2 on save error. */
async function store(ctx: TaskContext, format: string, marker: string, key: string, value: string): Promise<number> {
  const t = ctx.transfer;
  if (!t) return 2;
  t.fileInfo = applyInfoTemplate(t.fileInfo, format, marker, value);
  t.transferInfo = updateInfoMap(t.transferInfo, { [key]: value });
  try {
    await ctx.engine.records?.save();
  } catch (err) {
    ctx.logger.error(`cannot save the transfer record: ${errorText(err)}`);
    return 2;
  }
  return 0;
}

const addDigest: ExecJavaFactory = (): ExecJavaPlugin => ({
  async run({ ctx, args }) {
    const algo = option(args, '-digest') ?? 'MD5';
    const format = option(args, '-format') ?? '-##DIGEST##';
    if (!ctx.currentFile) return 4;
    let hex: string | null;
    try {
      hex = await fileDigest(ctx.currentFile, algo);
    } catch (err) {
      ctx.logger.error(`AddDigestJavaTask: cannot read ${ctx.currentFile}: ${errorText(err)}`);
      return 4;
    }
    if (hex === null) {
      ctx.logger.error(`AddDigestJavaTask: unsupported digest ${algo}`);
      return 3;
    }
    return store(ctx, format, '#DIGEST#', 'digest', hex);
  },
});

const addUuid: ExecJavaFactory = (): ExecJavaPlugin => ({
  run({ ctx, args }) {
    return store(ctx, option(args, '-format') ?? '-##UUID##', '#UUID#', 'uuid', randomUUID());
  },
});

/** Business-request classes: not allowed as EXECJAVA (status 2). */
const businessOnly = (name: string): ExecJavaFactory => () => ({
  run({ ctx }) {
    ctx.logger.error(`${name} is only allowed in business requests`);
    return 2;
  },
});

const testTask: ExecJavaFactory = () => ({
  run({ ctx, args }) {
    ctx.logger.info(`TestExecJavaTask: ${args}`);
    return 0;
  },
});

export const BUILTIN_EXECJAVA: Record<string, ExecJavaFactory> = {
  'org.svc.openr66.context.task.javatask.AddDigestJavaTask': addDigest,
  'org.svc.openr66.context.task.javatask.AddUuidJavaTask': addUuid,
  'org.svc.openr66.context.task.ExecBusinessTask': businessOnly('ExecBusinessTask'),
  'org.svc.openr66.context.task.SpooledInformTask': businessOnly('SpooledInformTask'),
  'org.svc.openr66.context.task.test.TestExecJavaTask': testTask,
};
