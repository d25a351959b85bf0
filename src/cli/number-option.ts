/**
 * The one reader of numeric command options: the text is checked against the option's entry of
 * the range table (src/config/ranges.ts, shared with the configuration readers), and anything
 * else (not a number, a fraction, out of range) is a UsageError naming the option and the range,
 * e.g. `-block: 2147483647999 is out of range; expected an integer from 100 to 16777216 (bytes)`.
 */
import { checkRange, OPTION_RANGES, type NumberRange, type OptionRangeKey } from '../config/ranges.js';
import type { ParsedArgs } from './args.js';
import { UsageError } from './cli-error.js';

/** The option's name in messages: `-block` for `send -block`, `-delay` for `send -delay +MS`. */
function optionName(key: OptionRangeKey): string {
  return key.split(' ')[1] ?? key;
}

function check(text: string, key: OptionRangeKey): number | bigint {
  const range: NumberRange = OPTION_RANGES[key];
  const result = checkRange(text.trim(), range);
  if (!result.ok) throw new UsageError(`${optionName(key)}: ${result.message}`);
  return result.value;
}

/** `text` as the number option `key` (`send -block`); a UsageError when not within its range. */
export function numberOption(text: string, key: OptionRangeKey): number {
  return Number(check(text, key));
}

/** `text` as a signed 64-bit option (`initdb -minimalSeq`, `-id`, `-startid`): exact, as a bigint. */
export function bigintOption(text: string, key: OptionRangeKey): bigint {
  return BigInt(check(text, key));
}

/** The last value of option `name` as the number option `key`, `fallback` when not given. */
export function optionalNumber(parsed: ParsedArgs, name: string, key: OptionRangeKey, fallback: number): number;
export function optionalNumber(parsed: ParsedArgs, name: string, key: OptionRangeKey, fallback?: number): number | undefined;
export function optionalNumber(parsed: ParsedArgs, name: string, key: OptionRangeKey, fallback?: number): number | undefined {
  const text = parsed.value(name);
  return text === undefined ? fallback : numberOption(text, key);
}
