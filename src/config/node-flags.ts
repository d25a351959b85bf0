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
