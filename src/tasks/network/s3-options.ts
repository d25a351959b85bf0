/**
 * The options of the five S3 tasks (tasks.md §8 S3GET ...): pipeline B words, then this parser.
 * The secret key is never part of an error text.
 */

export type S3TaskType = 'S3GET' | 'S3GETDELETE' | 'S3PUT' | 'S3PUTR66DELETE' | 'S3DELETE';

export interface S3Options {
  url: string;
  accessKey: string;
  /** Never logged, never in an error text. */
  secretKey: string;
  bucket: string;
  sourceName?: string;
  file?: string;
  targetName?: string;
  /** `-getTags`: null = all (`*`), else the listed keys; undefined = not requested. */
  getTags?: string[] | null;
  /** `-setTags` in order. */
  setTags?: Array<[string, string]>;
}

export class S3ArgumentError extends Error {}

const REQUIRED: Record<S3TaskType, Array<keyof S3Options>> = {
  S3GET: ['sourceName', 'file'],
  S3GETDELETE: ['sourceName', 'file'],
  S3DELETE: ['sourceName'],
  S3PUT: ['targetName'],
  S3PUTR66DELETE: ['targetName'],
};

const OPTION_NAMES: Readonly<Record<string, keyof S3Options>> = {
  '-URL': 'url',
  '-accessKey': 'accessKey',
  '-secretKey': 'secretKey',
  '-bucketName': 'bucket',
  '-sourceName': 'sourceName',
  '-file': 'file',
  '-targetName': 'targetName',
  '-getTags': 'getTags',
  '-setTags': 'setTags',
};

const FLAG: Record<keyof S3Options, string> = {
  url: '-URL', accessKey: '-accessKey', secretKey: '-secretKey', bucket: '-bucketName', sourceName: '-sourceName',
  file: '-file', targetName: '-targetName', getTags: '-getTags', setTags: '-setTags',
};

function parseGetTags(value: string): string[] | null {
  if (value === '*') return null;
  const keys = value.split(',').map((k) => k.trim());
  if (keys.some((k) => k === '')) throw new S3ArgumentError(`-getTags expects * or key1,key2 without empty items, got "${value}"`);
  return keys;
}

function parseSetTags(value: string): Array<[string, string]> {
  return value.split(',').map((item) => {
    const parts = item.split(':');
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') throw new S3ArgumentError(`-setTags expects key:value items separated by commas, got "${item}"`);
    return [parts[0] as string, parts[1] as string];
  });
}

/** Parses the words for `type`; throws S3ArgumentError naming the option (never a secret value). */
export function parseS3Options(type: S3TaskType, words: readonly string[]): S3Options {
  const v: Partial<Record<keyof S3Options, string>> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const name = OPTION_NAMES[w];
    if (name === undefined) throw new S3ArgumentError(`unknown word at position ${i + 1}${w.startsWith('-') ? ` (${w})` : ''}`);
    const value = words[++i];
    if (value === undefined) throw new S3ArgumentError(`${w} expects a value`);
    v[name] = value;
  }
  for (const k of ['url', 'accessKey', 'secretKey', 'bucket', ...REQUIRED[type]] as Array<keyof S3Options>) {
    if (!v[k]) throw new S3ArgumentError(`${FLAG[k]} is required for ${type}`);
  }
  const o: S3Options = { url: v.url as string, accessKey: v.accessKey as string, secretKey: v.secretKey as string, bucket: (v.bucket as string).toLowerCase() };
  try {
    new URL(o.url);
  } catch {
    throw new S3ArgumentError(`-URL expects an endpoint URL such as https://s3.example.org, got "${o.url}"`);
  }
  if (v.sourceName !== undefined) o.sourceName = v.sourceName;
  if (v.file !== undefined) o.file = v.file;
  if (v.targetName !== undefined) o.targetName = v.targetName;
  if (v.getTags !== undefined && (type === 'S3GET' || type === 'S3GETDELETE')) o.getTags = parseGetTags(v.getTags);
  if (v.setTags !== undefined && (type === 'S3PUT' || type === 'S3PUTR66DELETE')) o.setTags = parseSetTags(v.setTags);
  return o;
}
