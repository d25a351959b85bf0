/**
 * Output of the transfer, information and business commands (cli.md §3.13): a context line
 * `[<label>] <status text>` and the result object in the chosen format. Scripts parse these, so
 * the renderings follow the original character for character (order of fields, separators,
 * replaced characters); numbers stay exact (transfer ids are 64-bit).
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { OptionSpec, ParsedArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import type { Io } from '../io.js';

export type OutputFormat = 'json' | 'xml' | 'csv' | 'property' | 'quiet';

/** The format options, mutually exclusive; `-json` is the default. */
export const FORMAT_OPTIONS: OptionSpec[] = [{ name: 'quiet' }, { name: 'csv' }, { name: 'xml' }, { name: 'json' }, { name: 'property' }];

const FORMATS: readonly OutputFormat[] = ['quiet', 'csv', 'xml', 'json', 'property'];

/** The format chosen on the command line; two different ones are a usage error. */
export function formatOf(parsed: ParsedArgs): OutputFormat {
  const given = FORMATS.filter((f) => parsed.has(f));
  if (given.length > 1) throw new UsageError(`options ${given.map((f) => `-${f}`).join(', ')} are mutually exclusive (one output format)`);
  return given[0] ?? 'json';
}

export type FieldValue = string | number | bigint | boolean;

/**
 * The result object: fields in the order they are printed. masend builds two per file (thousands),
 * hence a plain loop to find a key (not a callback destructuring every entry).
 */
export class ResultFields {
  private readonly entries: Array<[string, FieldValue]> = [];

  /** Adds (or replaces in place) a field; undefined values are left out. */
  set(key: string, value: FieldValue | undefined): this {
    if (value === undefined) return this;
    const at = this.indexOf(key);
    if (at >= 0) this.entries[at] = [key, value];
    else this.entries.push([key, value]);
    return this;
  }

  get(key: string): FieldValue | undefined {
    const at = this.indexOf(key);
    return at >= 0 ? (this.entries[at] as [string, FieldValue])[1] : undefined;
  }

  private indexOf(key: string): number {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) if ((entries[i] as [string, FieldValue])[0] === key) return i;
    return -1;
  }

  list(): ReadonlyArray<readonly [string, FieldValue]> {
    return this.entries;
  }
}

// Most values have no line break: a search is cheaper than a replacement that changes nothing.
const noNewlines = (s: string): string => (s.includes('\n') || s.includes('\r') ? s.replace(/[\r\n]/g, ' ') : s);

function text(v: FieldValue): string {
  return typeof v === 'string' ? v : String(v);
}

function jsonValue(v: FieldValue): string {
  // bigint and number print as JSON numbers, exactly (no float round trip for ids).
  if (typeof v === 'string') return JSON.stringify(noNewlines(v));
  return String(v);
}

function xmlValue(v: FieldValue): string {
  return text(v).replace(/</g, '[').replace(/>/g, ']').replace(/&/g, ':');
}

function csvValue(v: FieldValue): string {
  const s = noNewlines(text(v));
  return s.includes(';') ? `"${s}"` : s;
}

/** The result object rendered in `format`, with a final newline ('' for quiet). */
export function renderResult(fields: ResultFields, format: OutputFormat): string {
  const list = fields.list();
  switch (format) {
    case 'quiet':
      return '';
    case 'json':
      return `{${list.map(([k, v]) => `${JSON.stringify(k)}:${jsonValue(v)}`).join(',')}}\n`;
    case 'xml':
      return `<xml>${list.map(([k, v]) => `<${k}>${xmlValue(v)}</${k}>`).join('')}</xml>\n`;
    case 'csv':
      return `${list.map(([k]) => csvValue(k)).join(';')}\n${list.map(([, v]) => csvValue(v)).join(';')}\n`;
    case 'property':
      return list.map(([k, v]) => `${k}=${noNewlines(text(v))}\n`).join('');
  }
}

/** Prints the context line and the result (nothing with -quiet). */
export function printResult(io: Io, format: OutputFormat, label: string, statusText: string, fields: ResultFields): void {
  if (format === 'quiet') return;
  io.out(`[${label}] ${statusText}\n${renderResult(fields, format)}`);
}

/** The `args` field: every argument followed by a space, the configuration file first (cli.md §3.13). */
export function argsField(configFile: string, args: readonly string[]): string {
  return [configFile, ...args].map((a) => `${a} `).join('');
}

/**
 * `command`, `args`, `status`, `statusTxt` then the fields of `body`, in order. On a failure the
 * original adds `status` and `statusTxt` after the transfer's fields, just before `error`
 * (captures/cli-output-java-3.6.2.md). `args` undefined: no `args` key (the original's
 * `Unique MultipleDirectTransfer` blocks have none).
 */
export function resultObject(label: string, args: string | undefined, status: ResultStatus, statusText: string, body: ResultFields): ResultFields {
  const out = new ResultFields().set('command', label).set('args', args);
  if (status !== 2) out.set('status', status).set('statusTxt', statusText);
  for (const [k, v] of body.list()) if (k !== 'error') out.set(k, v);
  if (status === 2) out.set('status', status).set('statusTxt', statusText);
  return out.set('error', body.get('error'));
}

/** Status of the result object: 0 success, 1 warning, 2 failure. */
export type ResultStatus = 0 | 1 | 2;

/** SUCCESS, WARNED or FAILURE. */
export function plainStatusWord(status: ResultStatus): string {
  return status === 0 ? 'SUCCESS' : status === 1 ? 'WARNED' : 'FAILURE';
}

/**
 * The status word as the original prints it after a text such as `Transfer in status: `: six
 * spaces before, one after (`Transfer in status:       SUCCESS `, `Test Message       SUCCESS
 * TestPacket...`; captures/cli-output-java-3.6.2.md). Scripts match these texts exactly.
 */
export function statusWord(status: ResultStatus): string {
  return `      ${plainStatusWord(status)} `;
}

/** RequestInformation's status text: the word alone between two spaces (` SUCCESS `). */
export function informationStatusText(status: ResultStatus): string {
  return ` ${plainStatusWord(status)} `;
}

/**
 * A local file as the original names it in a result: the path under serverhome with a leading `/`
 * (`/out/hello.txt`, its virtual path) when the file lies there, else the path as it is.
 */
export function virtualPath(serverHome: string, file: string): string {
  const rel = relative(serverHome, file);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : `/${rel.split(sep).join('/')}`;
}

/** `filefinal` of a successful transfer: the original prints its file object's description. */
export function fileFinalText(file: string | null | undefined): string {
  return file === undefined || file === null ? 'no file' : `File: ${file} Ready true isExternal false 0`;
}
