/**
 * The options of an ICAP scan (icap.md §1), shared by the ICAP task and `svc-r66client icaptest`.
 * Names are case-sensitive; an unknown word stops the parsing (the rest is ignored, as the
 * original does); everything from `--` on is kept for `-sendOnError` and never parsed here.
 */

import { checkRange, describeRange, OPTION_RANGES, type OptionRangeKey } from '../../config/ranges.js';

/** Predefined services (icap.md §1.1). */
export const ICAP_MODELS: Readonly<Record<string, string>> = {
  DEFAULT_MODEL: 'avscan',
  ICAP_AVSCAN: 'avscan',
  ICAP_CLAMAV: 'srv_clamav',
  ICAP_VIRUS_SCAN: 'virus_scan',
};

export const ICAP_DEFAULT_PORT = 1344;
/** The special `-file` value that sends the EICAR test string. */
export const EICARTEST = 'EICARTEST';

export type IcapLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LOG_LEVELS: ReadonlySet<string> = new Set(['DEBUG', 'INFO', 'WARN', 'ERROR']);

/** One header check: the named header must contain `text`. */
export interface HeaderCheck {
  key: string;
  text: string;
}

export interface IcapOptions {
  file: string;
  host: string;
  port: number;
  service: string;
  /** null: negotiated with an OPTIONS request. */
  previewSize: number | null;
  blockSize: number;
  receiveSize: number;
  maxSize: number;
  timeoutMs: number;
  previewCheck?: HeaderCheck;
  check204?: HeaderCheck;
  check200?: HeaderCheck;
  stringHttp?: string;
  logger?: IcapLogLevel;
  /** A `-logger` value that is none of the four levels: logged and ignored. */
  badLogger?: string;
  errorMove?: string;
  errorDelete: boolean;
  sendOnError: boolean;
  ignoreNetworkError: boolean;
  ignoreTooBigFileError: boolean;
  /** The words after `--` (the TRANSFER arguments of `-sendOnError`), empty when none. */
  transferArgs: string[];
  /** True when a `--` separator was present. */
  hasSeparator: boolean;
}

/** A bad option: status 1 (icap.md §3). */
export class IcapArgumentError extends Error {}

const DEFAULTS = { blockSize: 8192, receiveSize: 65536, maxSize: 2147483647, timeoutMs: 36_000_000 };

/** A number option checked against its range (src/config/ranges.ts): the message names both. */
function integer(option: string, value: string | undefined): number {
  const range = OPTION_RANGES[`icaptest ${option}` as OptionRangeKey];
  if (value === undefined) throw new IcapArgumentError(`${option} expects ${describeRange(range)}, got nothing`);
  const result = checkRange(value, range);
  if (!result.ok) throw new IcapArgumentError(`${option}: ${result.message}`);
  return Number(result.value);
}

function text(option: string, value: string | undefined): string {
  if (value === undefined) throw new IcapArgumentError(`${option} expects a value`);
  return value;
}

/** Parses the ICAP options; throws IcapArgumentError naming the option. */
export function parseIcapOptions(words: readonly string[]): IcapOptions {
  const sep = words.indexOf('--');
  const own = sep < 0 ? words : words.slice(0, sep);
  let file: string | undefined;
  let host: string | undefined;
  let port = ICAP_DEFAULT_PORT;
  let service: string | undefined;
  let model: string | undefined;
  let previewSize: number | null = null;
  const sizes = { ...DEFAULTS };
  const keys: Record<string, string | undefined> = {};
  const out: Partial<IcapOptions> = {};
  const flags = { errorDelete: false, sendOnError: false, ignoreNetworkError: false, ignoreTooBigFileError: false };
  let errorMove: string | undefined;
  let i = 0;
  parsing: for (; i < own.length; i++) {
    const word = own[i] as string;
    const next = (): string | undefined => own[++i];
    switch (word) {
      case '-file': file = text(word, next()); break;
      case '-to': host = text(word, next()); break;
      case '-port': {
        const p = integer(word, next());
        port = p === 0 ? ICAP_DEFAULT_PORT : p;
        break;
      }
      case '-service': service = text(word, next()); break;
      case '-model': {
        model = text(word, next());
        if (!Object.hasOwn(ICAP_MODELS, model)) throw new IcapArgumentError(`-model ${model} is unknown (known: ${Object.keys(ICAP_MODELS).join(', ')})`);
        break;
      }
      case '-previewSize': previewSize = integer(word, next()); break;
      case '-blockSize': sizes.blockSize = integer(word, next()); break;
      case '-receiveSize': sizes.receiveSize = integer(word, next()); break;
      case '-maxSize': sizes.maxSize = integer(word, next()); break;
      case '-timeout': sizes.timeoutMs = integer(word, next()); break;
      case '-keyPreview': case '-stringPreview': case '-key204': case '-string204': case '-key200': case '-string200':
        keys[word.slice(1)] = text(word, next());
        break;
      case '-stringHttp': out.stringHttp = text(word, next()); break;
      case '-logger': {
        const level = text(word, next()).toUpperCase();
        if (LOG_LEVELS.has(level)) out.logger = level as IcapLogLevel;
        else out.badLogger = level;
        break;
      }
      case '-errorMove': errorMove = text(word, next()); break;
      case '-errorDelete': flags.errorDelete = true; break;
      case '-sendOnError': flags.sendOnError = true; break;
      case '-ignoreNetworkError': flags.ignoreNetworkError = true; break;
      case '-ignoreTooBigFileError': flags.ignoreTooBigFileError = true; break;
      default:
        break parsing; // an unknown word ends the options, as in the original
    }
  }
  if (file === undefined || file === '') throw new IcapArgumentError('-file <path|EICARTEST> is required');
  if (host === undefined || host === '') throw new IcapArgumentError('-to <host> is required');
  if (service !== undefined && model !== undefined) throw new IcapArgumentError('-service and -model cannot be used together');
  const svc = service ?? (model !== undefined ? ICAP_MODELS[model] : undefined);
  if (svc === undefined || svc === '') throw new IcapArgumentError('-service <name> or -model <model> is required');
  if ([errorMove !== undefined, flags.errorDelete, flags.sendOnError].filter(Boolean).length > 1) {
    throw new IcapArgumentError('-errorMove, -errorDelete and -sendOnError cannot be used together');
  }
  const pair = (k: string, s: string): HeaderCheck | undefined => {
    const key = keys[k];
    const str = keys[s];
    return key !== undefined && str !== undefined ? { key, text: str } : undefined;
  };
  const opts: IcapOptions = {
    ...out,
    file,
    host,
    port,
    service: svc,
    previewSize,
    ...sizes,
    ...flags,
    transferArgs: sep < 0 ? [] : words.slice(sep + 1),
    hasSeparator: sep >= 0,
  };
  const checks = { previewCheck: pair('keyPreview', 'stringPreview'), check204: pair('key204', 'string204'), check200: pair('key200', 'string200') };
  for (const [name, check] of Object.entries(checks)) if (check) opts[name as keyof typeof checks] = check;
  if (errorMove !== undefined) opts.errorMove = errorMove;
  return opts;
}

/** One line per option, for the usage text of `icaptest` and the error of the task. */
export const ICAP_USAGE = `icaptest -file <path|EICARTEST> -to <host> [-port <port>] (-service <name> | -model <model>)
  [-previewSize <bytes>] [-blockSize <bytes>=8192] [-receiveSize <bytes>=65536] [-maxSize <bytes>=2147483647]
  [-timeout <ms>=36000000] [-keyPreview <header> -stringPreview <text>] [-key204 <header> -string204 <text>]
  [-key200 <header> -string200 <text>] [-stringHttp <text>] [-logger DEBUG|INFO|WARN|ERROR]
  [-errorMove <path> | -errorDelete | -sendOnError] [-ignoreNetworkError] [-ignoreTooBigFileError] [-- <transfer arguments>]
  models: ${Object.keys(ICAP_MODELS).join(', ')}
  exit codes: 0 clean (or ignored error), 1 bad arguments or file too big, 2 ICAP protocol error,
    3 network error, 4 file rejected (post action done), 5 file rejected and the post action failed
`;
