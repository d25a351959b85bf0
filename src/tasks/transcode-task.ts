/**
 * TRANSCODE (tasks.md §8): re-encode the current file into a new file between two character
 * sets, and/or convert its line endings. Charset names are the original's Java names: the EBCDIC
 * code pages iconv-lite lacks come from ./ebcdic.ts (IBM297, IBM01147, ...) and ./ebcdic-dbcs.ts
 * (x-IBM930, x-IBM939, ...), the others are mapped onto iconv-lite.
 */
import { readFile, writeFile } from 'node:fs/promises';
import iconv from 'iconv-lite';
import { ErrorCode } from '../model/error-code.js';
import type { Codec } from './charset-family.js';
import { ebcdicCodec } from './ebcdic.js';
import { ebcdicDbcsCodec } from './ebcdic-dbcs.js';
import { javaDoubleByteCodec } from './java-double-byte.js';
import { javaSingleByteCodec } from './java-single-byte.js';
import { unicodeCodec } from './unicode-charsets.js';
import { resolveTaskPath } from './paths.js';
import { pipelineA } from './substitution.js';
import { errorText, failure, success, type TaskImplementation } from './task.js';

const CR = Buffer.from([0x0d]);
const CRLF = Buffer.from([0x0d, 0x0a]);

/** iconv-lite name for a Java charset name, or null when unsupported. */
function iconvName(javaName: string): string | null {
  const candidates = [javaName, javaName.replace(/^x-/i, ''), javaName.replace(/^(x-)?IBM0*/i, 'cp'), javaName.replace(/^(x-)?IBM0*/i, 'ibm')];
  return candidates.find((c) => iconv.encodingExists(c)) ?? null;
}

/**
 * The codec of a Java charset name: a single-byte EBCDIC page, one of Java's Unicode charsets
 * (./unicode-charsets.ts), one of the JVM's other single-byte charsets (./java-single-byte.ts) or
 * one-or-two-byte East Asian ones (./java-double-byte.ts), all as Java has them; else iconv-lite's
 * (EUC-JP, GB18030, Big5-HKSCS, ...); else a mixed EBCDIC page (none of whose names iconv-lite
 * knows). Null when unsupported.
 */
export async function codecFor(javaName: string): Promise<Codec | null> {
  const builtIn = ebcdicCodec(javaName) ?? unicodeCodec(javaName) ?? (await javaSingleByteCodec(javaName)) ?? (await javaDoubleByteCodec(javaName));
  if (builtIn) return builtIn;
  const name = iconvName(javaName);
  // Java keeps a leading U+FEFF as a character; iconv-lite would drop it.
  if (name !== null) return { decode: (data) => iconv.decode(data, name, { stripBOM: false }), encode: (text) => iconv.encode(text, name) };
  return ebcdicDbcsCodec(javaName);
}

/** CR before every LF not already preceded by CR. */
export function unixToDos(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let lf = data.indexOf(0x0a); lf >= 0; lf = data.indexOf(0x0a, lf + 1)) {
    if (lf > 0 && data[lf - 1] === 0x0d) continue;
    parts.push(data.subarray(from, lf), CR);
    from = lf;
  }
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}

/** Drops a CR immediately followed by LF. */
export function dosToUnix(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = data.indexOf(CRLF); at >= 0; at = data.indexOf(CRLF, at + 2)) {
    parts.push(data.subarray(from, at));
    from = at + 1; // keep the LF
  }
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}

interface TranscodeOptions {
  from?: string;
  to?: string;
  newFile?: string;
  extension?: string;
  dos2unix: boolean;
  unix2dos: boolean;
}

function parseOptions(words: string[]): TranscodeOptions {
  const o: TranscodeOptions = { dos2unix: false, unix2dos: false };
  for (let i = 0; i < words.length; i++) {
    const w = (words[i] as string).toLowerCase();
    const next = words[i + 1];
    if (w === '-dos2unix') o.dos2unix = true;
    else if (w === '-unix2dos') o.unix2dos = true;
    else if (next !== undefined && (w === '-from' || w === '-to' || w === '-newfile' || w === '-extension')) {
      i++;
      if (w === '-from') o.from = next;
      else if (w === '-to') o.to = next;
      else if (w === '-newfile') o.newFile = next;
      else o.extension = next;
    }
  }
  return o;
}

const transcodeTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    const o = parseOptions(pipelineA(argument, ctx).text.split(/\s+/).filter((w) => w !== ''));
    if (o.dos2unix && o.unix2dos) return failure(`${type}: -dos2unix and -unix2dos cannot be used together`, ErrorCode.Warning);
    const file = ctx.currentFile;
    if (!file) return failure(`${type}: the transfer has no current file`, ErrorCode.FileNotFound);
    const eol = o.dos2unix ? dosToUnix : o.unix2dos ? unixToDos : null;
    if (!o.from || !o.to) {
      if (!eol) return failure(`${type}: not enough arguments: -from and -to, or -dos2unix or -unix2dos, are required`, ErrorCode.Warning);
      try {
        await writeFile(file, eol(await readFile(file)));
      } catch (err) {
        return failure(`${type}: cannot convert line endings of ${file}: ${errorText(err)}`, ErrorCode.Internal);
      }
      return success();
    }
    const from = await codecFor(o.from);
    const to = await codecFor(o.to);
    if (!from || !to) return failure(`${type}: unsupported charset ${!from ? o.from : o.to}`);
    const out = o.newFile ? resolveTaskPath(ctx, o.newFile) : `${file}.${o.extension ?? 'transcode'}`;
    try {
      await writeFile(out, to.encode(from.decode(await readFile(file))));
    } catch (err) {
      return failure(`${type}: cannot transcode ${file} into ${out}: ${errorText(err)}`);
    }
    if (eol) {
      try {
        await writeFile(out, eol(await readFile(out)));
      } catch (err) {
        ctx.logger.warn(`${type}: line endings of ${out} not converted: ${errorText(err)}`);
      }
    }
    return success(out);
  },
};

export const transcodeTasks: Record<string, TaskImplementation> = { TRANSCODE: transcodeTask };
