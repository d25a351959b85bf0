/** Picks the handler of a wrapper command; unknown or missing commands print the usage (cli.md §1.1). */
import type { Io } from './io.js';

export type CommandHandler<C> = (ctx: C, args: readonly string[]) => Promise<number>;

/**
 * A handler whose module is loaded only when its command runs: a client command then loads what
 * it uses, not every command's modules (all of them cost about 0.1-0.2 s of CPU at each start).
 */
export function lazyCommand<C>(load: () => Promise<CommandHandler<C>>): CommandHandler<C> {
  return async (ctx, args) => (await load())(ctx, args);
}

export async function dispatch<C>(
  program: string,
  args: readonly string[],
  commands: Readonly<Record<string, CommandHandler<C>>>,
  ctx: C,
  usage: string,
  io: Io,
): Promise<number> {
  const [command, ...rest] = args;
  const handler = command !== undefined && Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (handler === undefined) {
    // Unknown or missing command, `help` included: the usage, exit 0 (scripts rely on it).
    if (command !== undefined && command !== 'help') io.err(`${program}: unknown command '${command}'\n`);
    io.out(usage);
    return 0;
  }
  return handler(ctx, rest);
}
