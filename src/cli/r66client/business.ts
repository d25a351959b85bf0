/**
 * `business` (cli.md §5.2, original entry point BusinessRequest): asks a partner to run a business
 * class with an argument. `svc-r66client business -to HOST [-class CLASS] -arg ARGUMENT [-nolog]`.
 *
 * The conversation (r66-protocol.md §9.11) is small and only the CLI starts it, so it lives here:
 * BusinessRequest(header = "CLASS ARGUMENT", delay 0, way 0); the partner's first BusinessRequest
 * answer means success (way 1, or the echo of the request with way 0), way 2 or an Error packet
 * means failure; anything after the first answer is ignored.
 */
import { ErrorCode } from '../../model/error-code.js';
import { unexpected } from '../../net/commands/unexpected.js';
import { R66Error } from '../../model/r66-error.js';
import type { ConnectionPool } from '../../net/pool.js';
import { Way } from '../../protocol/index.js';
import { parseArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { argsField, FORMAT_OPTIONS, formatOf, printResult, resultObject, ResultFields, statusWord, type ResultStatus } from './output.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext } from './session.js';
import { BUSINESS_EXIT } from '../exit-codes.js';


/** The original's default class, which existing scripts name. */
export const DEFAULT_BUSINESS_CLASS = 'org.waarp.openr66.context.task.ExecBusinessTask';

const LABEL = 'BusinessRequest';
const MIN_ARGS = 4;

/** Runs the request; resolves on success, throws an R66Error on failure. */
export async function businessRequest(pool: ConnectionPool, partnerId: string, header: string): Promise<void> {
  const { channel } = await pool.openChannel(partnerId);
  try {
    await channel.send({ kind: 'businessRequest', header, delay: 0, way: Way.ASK });
    const answer = await channel.receive(undefined, 'the business request answer');
    if (answer.kind !== 'businessRequest') throw unexpected(answer, 'the business request answer');
    if (answer.way === Way.REFUSED) throw new R66Error(ErrorCode.ExternalOp, `the partner refused the business request: ${answer.header}`);
  } finally {
    channel.close();
  }
}

export async function businessCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const { io } = ctx;
  const { configFile, args } = configFileAndArgs(ctx.instance, argv);
  if (args.length < MIN_ARGS) {
    // The original logs an error and returns normally here (exit 0); a refused command must not
    // pass for success in a script: we say what was expected and exit as for wrong arguments.
    io.err('svc-r66client business: expected -to HOST -arg ARGUMENT [-class CLASS] [-nolog]\n');
    return BUSINESS_EXIT.badArgs;
  }
  return guarded(io, 'business', { badSetup: BUSINESS_EXIT.badArgs, unexpected: BUSINESS_EXIT.failed }, async () => {
    const parsed = parseArgs(args, {
      options: [{ name: 'to', value: 'HOST' }, { name: 'class', value: 'CLASS' }, { name: 'arg', value: 'ARGUMENT' }, { name: 'nolog' }, ...FORMAT_OPTIONS],
      maxPositionals: 0,
      command: 'business',
    });
    const format = formatOf(parsed);
    const to = parsed.value('to');
    const arg = parsed.value('arg');
    if (to === undefined || to === '') throw new UsageError('-to HOST is required');
    if (arg === undefined) throw new UsageError('-arg ARGUMENT is required');
    const header = `${parsed.value('class') ?? DEFAULT_BUSINESS_CLASS} ${arg}`;
    return withSession(configFile, {}, async (session) => {
      const started = Date.now();
      const partnerId = session.realHostId(to);
      const body = new ResultFields().set('remote', partnerId);
      let status: ResultStatus = 0;
      try {
        await businessRequest(await session.pool(), partnerId, header);
        body.set('delay', Date.now() - started);
      } catch (err) {
        if (!(err instanceof R66Error)) throw err;
        status = 2;
        body.set('error', `${err.code.name}: ${err.message}`);
      }
      const statusText = `Business Request in status: ${statusWord(status)}`;
      printResult(io, format, LABEL, statusText, resultObject(LABEL, argsField(configFile, args), status, statusText, body));
      return status === 0 ? BUSINESS_EXIT.ok : BUSINESS_EXIT.failed;
    });
  });
}
