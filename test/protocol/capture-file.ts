/**
 * Reader of the decoded capture files (see their README): rebuilds the exact bytes of every frame
 * from the header line, the part lengths and the part hex/text lines.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The captures, copied from the specification (../shared/spec/captures) into the repository's
 * fixtures, so that a clone anywhere runs the protocol tests; captures.test.ts checks the copy
 * against the specification's files wherever those are beside the clone.
 */
export const CAPTURES_DIR = fileURLToPath(new URL('../fixtures/captures/', import.meta.url));
/** Where the specification keeps them, beside the repository (absent in a clone made elsewhere). */
export const SPEC_CAPTURES_DIR = fileURLToPath(new URL('../../../shared/spec/captures/', import.meta.url));

export interface CapturedPart {
  length: number;
  /** The whole part, or, when `complete` is false, the shown prefix followed by zero bytes. */
  bytes: Buffer;
  complete: boolean;
  /** The `text=` line, decoded, when shown. */
  text?: string;
}

export interface CapturedFrame {
  file: string;
  stream: number;
  id: string;
  frameLength: number;
  dstId: number;
  srcId: number;
  code: number;
  type: number;
  header: CapturedPart;
  middle: CapturedPart;
  end: CapturedPart;
  /** The `raw=` hex: the start of the frame on the wire (whole when not followed by `...`). */
  raw: Buffer;
  /** Rebuilt wire bytes of the frame. */
  bytes: Buffer;
  complete: boolean;
}

function signedHex(text: string): number {
  const neg = text.startsWith('-');
  const v = parseInt(text.replace(/^-?0x/, ''), 16);
  return neg ? -v : v;
}

/** Decodes the Python-style quoted text of a `text=` line. */
export function unquote(quoted: string): string {
  const body = quoted.slice(1, -1);
  return body.replace(/\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|.)/g, (_m, e: string) => {
    if (e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    return ({ n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", '"': '"' } as Record<string, string>)[e] ?? e;
  });
}

function part(length: number, hex: string | undefined, text: string | undefined): CapturedPart {
  if (length === 0) return { length, bytes: Buffer.alloc(0), complete: true, text: '' };
  if (hex === undefined) throw new Error('part without hex line');
  const truncated = hex.endsWith('...');
  const shown = Buffer.from(truncated ? hex.slice(0, -3) : hex, 'hex');
  if (!truncated) return { length, bytes: shown, complete: true, text };
  if (text !== undefined) {
    const fromText = Buffer.from(text, 'utf8');
    if (fromText.length === length && fromText.subarray(0, shown.length).equals(shown)) return { length, bytes: fromText, complete: true, text };
  }
  // Only a prefix is shown (the text line too may stop early): keep the longest known prefix.
  const bytes = Buffer.alloc(length);
  const fromText = text === undefined ? null : Buffer.from(text, 'utf8');
  (fromText && fromText.length > shown.length && fromText.length < length && fromText.subarray(0, shown.length).equals(shown) ? fromText : shown).copy(bytes);
  return { length, bytes, complete: false, text };
}

/** Parses one capture file into frames, in order. */
export function readCaptureFile(name: string): CapturedFrame[] {
  const lines = readFileSync(CAPTURES_DIR + name, 'utf8').split('\n');
  const frames: CapturedFrame[] = [];
  let stream = -1;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i++] as string;
    const s = /^===== TCP stream (\d+)/.exec(line);
    if (s) stream = Number(s[1]);
    const f = /^-- frame#(\d+) (\S+) .* len=(\d+) remoteId=(\S+) localId=(\S+) code=(\d+)/.exec(line);
    if (!f) continue;
    const l = /headerLen=(\d+) \(=9\+(\d+)\) middleLen=(\d+) endLen=(\d+) type=(\d+)/.exec(lines[i++] as string);
    if (!l) throw new Error(`${name}: no local line after ${line}`);
    const fields: Record<string, string> = {};
    while (i < lines.length && /^ {3}(header|middle|end|raw)/.test(lines[i] as string)) {
      const m = /^ {3}(\w+)(?:\[\d+\])? (hex|text)=(.*)$/.exec(lines[i] as string) ?? /^ {3}(raw)()=(.*)$/.exec(lines[i] as string);
      if (m) fields[`${m[1]}${m[2] ? ` ${m[2]}` : ''}`] = m[3] as string;
      i++;
    }
    const text = (k: string): string | undefined => (fields[`${k} text`] === undefined ? undefined : unquote(fields[`${k} text`] as string));
    const header = part(Number(l[2]), fields['header hex'], text('header'));
    const middle = part(Number(l[3]), fields['middle hex'], text('middle'));
    const end = part(Number(l[4]), fields['end hex'], text('end'));
    const frame = {
      file: name,
      stream,
      id: `${name.replace('.txt', '')} stream ${stream} frame#${f[1]} ${f[2]}`,
      frameLength: Number(f[3]),
      dstId: signedHex(f[4] as string),
      srcId: signedHex(f[5] as string),
      code: Number(f[6]),
      type: Number(l[5]),
      header,
      middle,
      end,
      raw: Buffer.from((fields.raw ?? '').replace(/\.\.\.$/, ''), 'hex'),
      complete: header.complete && middle.complete && end.complete,
    };
    const bytes = Buffer.alloc(4 + frame.frameLength);
    bytes.writeInt32BE(frame.frameLength, 0);
    bytes.writeInt32BE(frame.dstId, 4);
    bytes.writeInt32BE(frame.srcId, 8);
    bytes[12] = frame.code;
    bytes.writeInt32BE(Number(l[1]), 13);
    bytes.writeInt32BE(middle.length, 17);
    bytes.writeInt32BE(end.length, 21);
    bytes[25] = frame.type;
    Buffer.concat([header.bytes, middle.bytes, end.bytes]).copy(bytes, 26);
    frames.push({ ...frame, bytes });
  }
  return frames;
}

/** Names of the capture files (`*.txt`). */
export function captureFiles(): string[] {
  return readdirSync(CAPTURES_DIR).filter((n) => n.endsWith('.txt')).sort();
}
