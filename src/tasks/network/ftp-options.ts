/**
 * The options of the FTP task (tasks.md §8 FTP) and their words: the argument is formatted with the
 * transfer information, split on spaces, and each word substituted (pipeline A per word).
 */
import type { TaskContext } from '../context.js';
import { formatWithInfo, normalizeSpaces, replaceVariables } from '../substitution.js';
import { MARKERS, variableValues } from '../variables.js';

export type FtpDigest = 'crc' | 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';
export type FtpCommand = 'get' | 'put' | 'append';
export type FtpTls = 'no' | 'implicit' | 'explicit';

export interface FtpOptions {
  file: string;
  host: string;
  port: number;
  user: string;
  /** Never logged, never in an error text. */
  password: string;
  account?: string;
  passive: boolean;
  tls: FtpTls;
  cwd?: string;
  digest?: FtpDigest;
  pre?: string;
  post?: string;
  command: FtpCommand;
}

export class FtpArgumentError extends Error {}

/** The words of the argument: format first, then `#VARIABLES#` in each word (tokens hold no spaces). */
export function ftpWords(argument: string, ctx: TaskContext): string[] {
  const formatted = formatWithInfo(normalizeSpaces(argument), ctx).trim();
  if (formatted === '') return [];
  const values = variableValues(ctx);
  for (const m of MARKERS) values.set(m, '');
  return formatted.split(' ').map((w) => replaceVariables(w, values));
}

const DIGESTS: ReadonlySet<string> = new Set(['crc', 'md5', 'sha1', 'sha256', 'sha384', 'sha512']);

/** Parses the options; the error names the option but never shows a value of `-pwd`. */
export function parseFtpOptions(words: readonly string[]): FtpOptions {
  const v: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (!w.startsWith('-')) throw new FtpArgumentError(`unexpected word at position ${i + 1} (options start with -)`);
    const value = words[i + 1];
    if (value === undefined) throw new FtpArgumentError(`${w} expects a value`);
    v[w.slice(1)] = value;
    i++;
  }
  const known = new Set(['file', 'to', 'port', 'user', 'pwd', 'account', 'mode', 'ssl', 'cwd', 'digest', 'pre', 'post', 'command']);
  for (const k of Object.keys(v)) if (!known.has(k)) throw new FtpArgumentError(`unknown option -${k}`);
  for (const k of ['file', 'to', 'user', 'pwd', 'command']) if (!v[k]) throw new FtpArgumentError(`-${k} is required`);
  const port = v.port === undefined ? 21 : Number(v.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new FtpArgumentError(`-port expects a port number, got "${v.port}"`);
  const command = (v.command as string).toLowerCase();
  if (command !== 'get' && command !== 'put' && command !== 'append') throw new FtpArgumentError(`-command must be get, put or append, got "${v.command}"`);
  const ssl = (v.ssl ?? 'no').toLowerCase();
  if (ssl !== 'no' && ssl !== 'implicit' && ssl !== 'explicit') throw new FtpArgumentError(`-ssl must be no, implicit or explicit, got "${v.ssl}"`);
  const digest = v.digest?.toLowerCase();
  if (digest !== undefined && !DIGESTS.has(digest)) throw new FtpArgumentError(`-digest must be one of ${[...DIGESTS].join(', ')}, got "${v.digest}"`);
  const o: FtpOptions = {
    file: v.file as string,
    host: v.to as string,
    port,
    user: v.user as string,
    password: v.pwd as string,
    // Any value other than passive means active (tasks.md).
    passive: (v.mode ?? 'passive').toLowerCase() === 'passive',
    tls: ssl,
    command,
  };
  if (v.account !== undefined) o.account = v.account;
  if (v.cwd !== undefined) o.cwd = v.cwd;
  if (digest !== undefined) o.digest = digest as FtpDigest;
  if (v.pre !== undefined) o.pre = v.pre.replace(/,/g, ' ');
  if (v.post !== undefined) o.post = v.post.replace(/,/g, ' ');
  return o;
}
