/**
 * The original's command lines use single-dash long options (`-to HOST`, `-initdb`, `-file F`),
 * which no common option library parses. This small parser is shared by every svc command.
 *
 * Rules (cli.md §3, §4):
 * - An option is `-name` or `--name` (the double-dash form is our convenience for our own
 *   options such as `--home`); a bare `--` ends option parsing (the rest goes to `rest`).
 * - An option taking a value consumes the next argument whatever it looks like (so `-id -42`
 *   works: negative transfer ids are valid).
 * - Names compare case-insensitively unless the command says otherwise (transfer commands are
 *   case-sensitive in the original).
 * - An unknown option is an error by default; a command may instead stop parsing there
 *   (`masend ... -client` relies on that) and receive the remainder in `rest`.
 */
import { UsageError } from './cli-error.js';

export interface OptionSpec {
  /** Name without dashes, as documented (`initdb`, `loadExtendedTaskFactory`). */
  name: string;
  /** Placeholder of the value in messages (`FILE`, `DIR`); absent for a flag. */
  value?: string;
  /** Other accepted names (without dashes). */
  aliases?: string[];
}

export interface ParseSpec {
  options: readonly OptionSpec[];
  /** Default false: names compare case-insensitively (the database tool, the admin commands). */
  caseSensitive?: boolean;
  /** What an unknown option does: `error` (default) or `stop` (it and the rest go to `rest`). */
  onUnknown?: 'error' | 'stop';
  /** Most positional arguments accepted (default: unlimited). */
  maxPositionals?: number;
  /** Text naming the command in error messages (`initdb`). */
  command?: string;
}

export interface ParsedArgs {
  /** Every occurrence of each option, by its canonical name; flags hold `true`. */
  readonly occurrences: ReadonlyMap<string, ReadonlyArray<string | true>>;
  readonly positionals: readonly string[];
  /** Arguments after `--`, or from the first unknown option on when `onUnknown` is `stop`. */
  readonly rest: readonly string[];
  /** True when the option was given at least once. */
  has(name: string): boolean;
  /** Value of the last occurrence (the original's parsers let the last one win). */
  value(name: string): string | undefined;
  /** Every value given for a value option, in order. */
  values(name: string): string[];
}

function isOptionToken(arg: string): boolean {
  return arg.length > 1 && arg.startsWith('-') && arg !== '--';
}

function stripDashes(arg: string): string {
  return arg.startsWith('--') ? arg.slice(2) : arg.slice(1);
}

/** Parses `argv` (without the command word) against `spec`; throws UsageError on bad input. */
export function parseArgs(argv: readonly string[], spec: ParseSpec): ParsedArgs {
  const fold = (s: string): string => (spec.caseSensitive ? s : s.toLowerCase());
  const byName = new Map<string, OptionSpec>();
  for (const opt of spec.options) {
    for (const n of [opt.name, ...(opt.aliases ?? [])]) byName.set(fold(n), opt);
  }
  const where = spec.command ? ` for ${spec.command}` : '';
  const occurrences = new Map<string, Array<string | true>>();
  const positionals: string[] = [];
  let rest: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest = argv.slice(i + 1);
      break;
    }
    if (!isOptionToken(arg)) {
      if (spec.maxPositionals !== undefined && positionals.length >= spec.maxPositionals) {
        throw new UsageError(`unexpected argument '${arg}'${where}`);
      }
      positionals.push(arg);
      continue;
    }
    const opt = byName.get(fold(stripDashes(arg)));
    if (!opt) {
      if (spec.onUnknown === 'stop') {
        rest = argv.slice(i);
        break;
      }
      const known = spec.options.map((o) => `-${o.name}`).join(', ');
      throw new UsageError(`unknown option '${arg}'${where}${known ? ` (expected one of: ${known})` : ''}`);
    }
    let value: string | true = true;
    if (opt.value !== undefined) {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`option -${opt.name}${where} expects a value (${opt.value})`);
      value = next;
      i++;
    }
    const list = occurrences.get(opt.name) ?? [];
    list.push(value);
    occurrences.set(opt.name, list);
  }

  return {
    occurrences,
    positionals,
    rest,
    has: (name) => occurrences.has(name),
    value: (name) => {
      const last = occurrences.get(name)?.at(-1);
      return typeof last === 'string' ? last : undefined;
    },
    values: (name) => (occurrences.get(name) ?? []).filter((v): v is string => typeof v === 'string'),
  };
}
