/**
 * `message` (cli.md §5.1, original entry point Message): the connectivity and authentication test.
 * `svc-r66client message -to HOST -msg TEXT [-quiet|-csv|-xml|-json|-property]`.
 */
import { sendMessage } from '../../client/message.js';
import { R66Error } from '../../model/r66-error.js';
import { parseArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { FORMAT_OPTIONS, formatOf, statusWord } from './output.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext } from './session.js';
import { MESSAGE_EXIT } from '../exit-codes.js';


/** The original needs 5 arguments counting the configuration file: `-to HOST -msg TEXT`. */
const MIN_ARGS = 4;

export async function messageCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const { io } = ctx;
  return guarded(io, 'message', { badSetup: MESSAGE_EXIT.badArgs, unexpected: MESSAGE_EXIT.unexpected }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    const parsed = parseArgs(args, { options: [{ name: 'to', value: 'HOST' }, { name: 'msg', value: 'TEXT' }, ...FORMAT_OPTIONS], maxPositionals: 0, command: 'message' });
    const quiet = formatOf(parsed) === 'quiet';
    const to = parsed.value('to');
    if (args.length < MIN_ARGS || to === undefined || to === '') throw new UsageError('expected -to HOST -msg TEXT');
    const text = parsed.value('msg') ?? 'MESSAGE';
    return withSession(configFile, {}, async (session) => {
      const partner = await session.partner(to);
      const failure = (why: string): number => {
        if (!quiet) io.out(`Test Message ${statusWord(2)}${why}\n`);
        return MESSAGE_EXIT.failed;
      };
      if (partner === undefined) return failure(`partner ${to} is not known (NotKnownHost)`);
      if (partner.isClient) return failure(`partner ${partner.hostId} is a client only, it cannot answer (NotKnownHost)`);
      try {
        const result = await sendMessage(await session.pool(), partner.hostId, text, session.config.limits.timeoutCon);
        if (!quiet) io.out(`Test Message ${statusWord(0)}${result.answer}\n`);
        return MESSAGE_EXIT.ok;
      } catch (err) {
        if (err instanceof R66Error) return failure(`${err.code.name}: ${err.message}`);
        throw err;
      }
    });
  });
}
