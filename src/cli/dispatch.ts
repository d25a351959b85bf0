/** Picks the handler of a wrapper command; a missing command or `help` prints the usage (cli.md §1.1). */
import type { Io } from './io.js';
import { EXIT_UNKNOWN_COMMAND } from './exit-codes.js';


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
    // No command or `help`: the usage, exit 0. An unknown command is an error (exit 1, the usage on
    // stderr) so that a typo in a script does not pass for success (compatibility.md).
    if (command === undefined || command === 'help' || command === '-h' || command === '--help') {
      io.out(usage);
      return 0;
    }
    io.err(`${program}: unknown command '${command}'\n${usage}`);
    return EXIT_UNKNOWN_COMMAND;
  }
  return handler(ctx, rest);
}
