import { setFlagsFromString } from 'node:v8';

/**
 * How a node command-line argument names a V8 flag: V8 takes `-` or `_` between a flag's words
 * and a value after `=`, so `--semi_space_growth_factor=2` is `--semi-space-growth-factor`.
 * Used where a process sets a V8 flag itself unless its command line chose (decisions 0016, 0021).
 */
export function v8FlagName(arg: string): string {
  return `--${arg.replace(/^-+/, '').split('=')[0]?.replaceAll('_', '-') ?? ''}`;
}

/** Whether the node command line (`process.execArgv`) gives one of `flags` (names with `-`). */
export function commandLineSets(execArgv: readonly string[], flags: readonly string[]): boolean {
  return execArgv.some((a) => flags.includes(v8FlagName(a)));
}

/**
 * Sets V8 flag `flag` (name with `-`) to `value` in this running process, unless the node command
 * line (`execArgv`) gives it: the operator's choice then stays in force. Only for flags V8 reads
 * again while it runs (decisions 0016, 0035). Returns the value set, or undefined when the command
 * line's was kept.
 */
export function setV8FlagUnlessGiven<T extends number>(flag: string, value: T, execArgv: readonly string[]): T | undefined {
  if (commandLineSets(execArgv, [flag])) return undefined;
  setFlagsFromString(`${flag}=${value}`);
  return value;
}
