import { ErrorCode, errorCodeFromChar, type ErrorCodeInfo } from '../../model/error-code.js';
import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, isInt32, requireMinLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';
import { packetError } from '../errors.js';
import { jsonInt, jsonLong, jsonStr, jsonString, parseJsonObject } from '../json.js';

/**
 * Request (type 7, packets §8): transfer request (way 0) and its answer (way 1), in either of the
 * two encodings. The encoder picks `encoding`; choose it with requestEncodingFor(partner).
 */
export interface RequestPacket {
  kind: 'request';
  /** JSON (partners announcing VERSION >= 2.4.17) or legacy text. */
  encoding: 'json' | 'legacy';
  rule: string;
  /** Transfer mode 1..8 (TransferMode); Java refuses to encode a mode <= 0. */
  mode: number;
  /** 0 = request, 1 = answer. */
  way: number;
  filename: string;
  /** Block size; a value < 100 means "the receiver's default" (the handler applies it). */
  blockSize: number;
  rank: number;
  /** specialId (transfer id), exact int64. */
  specialId: bigint;
  /** `i` normally; an error code in a refusal answer. Unknown characters decode as Unknown. */
  code: ErrorCodeInfo;
  /** File size, -1 if unknown. */
  length: bigint;
  /** Bandwidth limit in bytes/s, 0 = none. Not carried by the legacy encoding (decodes as 0). */
  limit: bigint;
  fileInformation: string;
  /** Legacy only: field separator (`;`, or a space for partners below 2.4.13). Default `;`. */
  separator?: string;
}

/** Java decoder requires H >= 1 and M >= 2 (way byte plus fields). */
export function decodeRequest(p: PacketParts): RequestPacket {
  requireMinLength(p.header, 1, 'Request header');
  requireMinLength(p.middle, 2, 'Request middle');
  const way = p.middle[0] as number;
  const header = fromUtf8(p.header);
  const fields = fromUtf8(p.middle.subarray(1));
  const fileInformation = fromUtf8(p.end);
  return header.startsWith('{') ? decodeJson(header, way, fields, fileInformation) : decodeLegacy(header, way, fields, fileInformation);
}

function codeFromCodePoint(cp: number): ErrorCodeInfo {
  return cp >= 0 && cp <= 0xffff ? errorCodeFromChar(String.fromCharCode(cp)) ?? ErrorCode.Unknown : ErrorCode.Unknown;
}

function decodeJson(header: string, way: number, middle: string, fileInformation: string): RequestPacket {
  const h = parseJsonObject(header);
  const m = parseJsonObject(middle);
  // Java: a missing string is empty, a missing number is 0.
  return {
    kind: 'request',
    encoding: 'json',
    rule: jsonStr(h, 'rule', ''),
    mode: jsonInt(h, 'mode', 0),
    way,
    filename: jsonStr(m, 'filename', ''),
    blockSize: jsonInt(m, 'block', 0),
    rank: jsonInt(m, 'rank', 0),
    specialId: jsonLong(m, 'id', 0n),
    code: codeFromCodePoint(jsonInt(m, 'code', 0)),
    length: jsonLong(m, 'length', 0n),
    limit: jsonLong(m, 'limit', 0n),
    fileInformation,
  };
}

const INTEGER = /^[+-]?\d{1,19}$/;

function legacyInt(text: string, what: string): number {
  const n = INTEGER.test(text) ? Number(text) : NaN;
  if (!isInt32(n)) throw packetError(`legacy Request ${what} is not an int32: ${JSON.stringify(text.slice(0, 40))}`);
  return n;
}

function legacyLong(text: string, what: string): bigint {
  const n = INTEGER.test(text) ? BigInt(text) : null;
  if (n === null || n < -(2n ** 63n) || n >= 2n ** 63n) throw packetError(`legacy Request ${what} is not an int64: ${JSON.stringify(text.slice(0, 40))}`);
  return n;
}

/** Java's String.split drops trailing empty fields. */
function splitDroppingTrailing(text: string, sep: string): string[] {
  const parts = text.split(sep);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function decodeLegacy(header: string, way: number, middle: string, fileInformation: string): RequestPacket {
  const head = header.split(' ');
  if (head.length !== 2) throw packetError('legacy Request header must be "<rule> <mode>"');
  let separator = ';';
  let f = splitDroppingTrailing(middle, ';');
  if (f.length < 5) {
    separator = ' ';
    f = splitDroppingTrailing(middle, ' ');
  }
  if (f.length < 5) throw packetError('legacy Request middle has fewer than 5 fields');
  const codeField = f[4] as string;
  if (codeField.length === 0) throw packetError('legacy Request code field is empty');
  return {
    kind: 'request',
    encoding: 'legacy',
    rule: head[0] as string,
    mode: legacyInt(head[1] as string, 'mode'),
    way,
    filename: f[0] as string,
    blockSize: legacyInt(f[1] as string, 'block'),
    rank: legacyInt(f[2] as string, 'rank'),
    specialId: legacyLong(f[3] as string, 'id'),
    code: errorCodeFromChar(codeField.charAt(0)) ?? ErrorCode.Unknown,
    length: f.length > 5 ? legacyLong(f[5] as string, 'length') : -1n,
    limit: 0n,
    fileInformation,
    separator,
  };
}

export function encodeRequest(r: RequestPacket): PacketParts {
  if (r.mode <= 0) throw new RangeError('a Request needs a transfer mode > 0 (Java refuses to encode it)');
  const end = utf8(r.fileInformation);
  if (r.encoding === 'legacy') {
    const sep = r.separator ?? ';';
    const text = [r.filename, r.blockSize, r.rank, r.specialId, r.code.char, r.length].join(sep);
    return { type: PacketType.REQUEST, header: utf8(`${r.rule} ${r.mode}`), middle: Buffer.concat([byteBytes(r.way), utf8(text)]), end };
  }
  // Field order and omission of empty strings as the Java host writes them (captures).
  const header = `{${r.rule === '' ? '' : `"rule":${jsonString(r.rule)},`}"mode":${r.mode}}`;
  const fn = r.filename === '' ? '' : `"filename":${jsonString(r.filename)},`;
  const body = `{${fn}"block":${r.blockSize},"rank":${r.rank},"id":${r.specialId},"code":${r.code.char.charCodeAt(0)},"length":${r.length},"limit":${r.limit}}`;
  return { type: PacketType.REQUEST, header: utf8(header), middle: Buffer.concat([byteBytes(r.way), utf8(body)]), end };
}

/** Block sizes below this mean "use the decoding host's default" (r66-protocol.md §9.6). */
export const MIN_BLOCK_SIZE = 100;

/**
 * The block size a host adopts from a received Request: below MIN_BLOCK_SIZE its own default; the
 * requested host also caps it to its configured block size (pass that as `cap`).
 */
export function negotiateBlockSize(received: number, localDefault: number, cap?: number): number {
  const size = received < MIN_BLOCK_SIZE ? localDefault : received;
  return cap !== undefined && size > cap ? cap : size;
}
