/**
 * The transfer options shared by send, asend, msend and masend (cli.md §3.1). Option names are
 * case-sensitive here (the original uses a standard option parser for them), and a word that is
 * not an option ends the parsing, as the original's parser does after `-info TEXT` when the text
 * was not quoted: the words after it are ignored, not an error.
 */
import { parseArgs, type OptionSpec, type ParsedArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { FORMAT_OPTIONS, formatOf, type OutputFormat } from './output.js';
import { bigintOption, numberOption } from '../number-option.js';

export const TRANSFER_OPTIONS: OptionSpec[] = [
  { name: 'to', value: 'HOST' },
  { name: 'file', value: 'PATH' },
  { name: 'rule', value: 'RULE' },
  { name: 'id', value: 'ID' },
  { name: 'info', value: 'TEXT' },
  { name: 'md5' },
  { name: 'block', value: 'BYTES' },
  { name: 'start', value: 'yyyyMMddHHmmss' },
  { name: 'delay', value: '+MS|EPOCHMS' },
  { name: 'nolog' },
  { name: 'logWarn' },
  { name: 'notlogWarn' },
  { name: 'nofollow' },
  ...FORMAT_OPTIONS,
];

export interface TransferArgs {
  /** Partner ids as typed (one for send/asend; the comma list split for msend/masend). */
  to: string[];
  /** Files as typed (comma list split for msend/masend; `§` not yet replaced). */
  files: string[];
  rule: string | undefined;
  id: bigint | undefined;
  info: string;
  md5: boolean;
  /** Undefined: the configured `limit/blocksize`. */
  blockSize: number | undefined;
  /** Planned start; undefined = now. */
  start: Date | undefined;
  noLog: boolean;
  logWarn: boolean;
  noFollow: boolean;
  format: OutputFormat;
  /** masend only: `-client` (resolve remote wildcards through the network). */
  client: boolean;
}

export interface TransferParseOptions {
  /** msend/masend: `-to` and `-file` are comma-separated lists. */
  multiple: boolean;
  /** masend: accepts `-client`. */
  allowClient?: boolean;
  command: string;
  /** Clock for `-delay +MS` (tests). */
  now?: () => number;
}

/** The arguments up to the first word that is neither an option nor an option's value. */
function optionPrefix(argv: readonly string[], options: readonly OptionSpec[]): string[] {
  const withValue = new Set(options.filter((o) => o.value !== undefined).map((o) => o.name));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--' || !a.startsWith('-') || a.length < 2) break;
    out.push(a);
    const name = a.startsWith('--') ? a.slice(2) : a.slice(1);
    if (withValue.has(name) && i + 1 < argv.length) out.push(argv[++i] as string);
  }
  return out;
}

/** `yyyyMMddHHmmss`, local time. */
export function parseStartTime(text: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) throw new UsageError(`-start expects a local time as yyyyMMddHHmmss, got '${text}'`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (date.getMonth() !== mo - 1 || date.getDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new UsageError(`-start: '${text}' is not a valid date and time (yyyyMMddHHmmss)`);
  }
  return date;
}

/** `+MS` (milliseconds from now) or an absolute epoch in milliseconds (cli.md §3.1). */
export function parseDelay(text: string, now: number): Date {
  if (text.startsWith('+')) return new Date(now + numberOption(text.slice(1), 'send -delay +MS'));
  return new Date(numberOption(text, 'send -delay EPOCHMS'));
}

/** `yyyyMMddHHmmss` of a local time (the restart time of `transfer -restart`). */
export function formatStartTime(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** A transfer id: signed 64-bit decimal (negative ids are valid). */
export function parseTransferId(text: string): bigint {
  return bigintOption(text, 'send -id');
}

function splitList(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function exclusive(parsed: ParsedArgs, a: string, b: string): void {
  if (parsed.has(a) && parsed.has(b)) throw new UsageError(`options -${a} and -${b} are mutually exclusive`);
}

/** Parses and validates the transfer options; throws UsageError ("not all parameters are set"...). */
export function parseTransferArgs(argv: readonly string[], opts: TransferParseOptions): TransferArgs {
  const options = opts.allowClient ? [...TRANSFER_OPTIONS, { name: 'client' }] : TRANSFER_OPTIONS;
  const parsed = parseArgs(optionPrefix(argv, options), { options, caseSensitive: true, command: opts.command });
  exclusive(parsed, 'start', 'delay');
  exclusive(parsed, 'logWarn', 'notlogWarn');
  const format = formatOf(parsed);
  const toText = parsed.value('to');
  const fileText = parsed.value('file');
  const to = opts.multiple ? splitList(toText) : toText === undefined || toText === '' ? [] : [toText];
  const files = opts.multiple ? splitList(fileText) : fileText === undefined || fileText === '' ? [] : [fileText];
  const idText = parsed.value('id');
  const id = idText === undefined ? undefined : parseTransferId(idText);
  const rule = parsed.value('rule') || undefined;
  if (to.length === 0 || (id === undefined && (rule === undefined || files.length === 0))) {
    throw new UsageError('not all parameters are set: expected -to HOST with -rule RULE and -file FILE, or -to HOST with -id ID');
  }
  const now = (opts.now ?? Date.now)();
  const startText = parsed.value('start');
  const delayText = parsed.value('delay');
  const blockText = parsed.value('block');
  return {
    to,
    files,
    rule,
    id,
    info: parsed.value('info') ?? 'noinfo',
    md5: parsed.has('md5'),
    blockSize: blockText === undefined ? undefined : numberOption(blockText, 'send -block'),
    start: startText !== undefined ? parseStartTime(startText) : delayText !== undefined ? parseDelay(delayText, now) : undefined,
    noLog: parsed.has('nolog'),
    logWarn: !parsed.has('notlogWarn'),
    noFollow: parsed.has('nofollow'),
    format,
    client: parsed.has('client'),
  };
}

/** A format chosen even in arguments that failed to parse (to honour -quiet in error output). */
export function formatHint(argv: readonly string[]): OutputFormat {
  return argv.includes('-quiet') ? 'quiet' : 'json';
}
