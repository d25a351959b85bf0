/**
 * `getinfo` (cli.md §3.7, original entry point RequestInformation): files of a rule's send
 * directory on a partner (exist, detail, list, MLSx list), or a partner's record of a transfer.
 */
import { getFileInfo, getTransferInfo, type FileInfoRequest } from '../../client/getinfo.js';
import { ErrorCode } from '../../model/error-code.js';
import { R66Error } from '../../model/r66-error.js';
import { runnersFromXml } from '../../store/index.js';
import { parseArgs, type ParsedArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { argsField, FORMAT_OPTIONS, formatOf, informationStatusText, printResult, resultObject, ResultFields, type ResultStatus } from './output.js';
import { addRecordFields } from './record-fields.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext } from './session.js';
import { parseTransferId } from './transfer-args.js';
import { GETINFO_EXIT } from '../exit-codes.js';


const LABEL = 'RequestInformation';
const FILE_REQUESTS: readonly FileInfoRequest[] = ['exist', 'detail', 'list', 'mlsx'];
const MIN_ARGS = 4;

const OPTIONS = [
  { name: 'to', value: 'HOST' },
  { name: 'rule', value: 'RULE' },
  { name: 'file', value: 'PATTERN' },
  { name: 'id', value: 'ID' },
  ...FILE_REQUESTS.map((name) => ({ name })),
  { name: 'reqto' },
  { name: 'reqfrom' },
  { name: 'logWarn' },
  { name: 'notlogWarn' },
  ...FORMAT_OPTIONS,
];

type Query = { kind: 'file'; rule: string; request: FileInfoRequest; file: string } | { kind: 'transfer'; id: bigint; callerIsRequester: boolean };

/** The last of the request flags given wins, as options overwrite each other in the original. */
function lastGiven(args: readonly string[], names: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const a of args) {
    const n = a.replace(/^--?/, '').toLowerCase();
    const hit = names.find((x) => x.toLowerCase() === n);
    if (hit !== undefined) found = hit;
  }
  return found;
}

export function parseGetinfoQuery(args: readonly string[], parsed: ParsedArgs): Query {
  const idText = parsed.value('id');
  const request = lastGiven(args, FILE_REQUESTS) as FileInfoRequest | undefined;
  if (idText !== undefined) {
    if (request !== undefined) throw new UsageError(`-id cannot be combined with -${request}`);
    // -reqto: this host was the requested side; the default (-reqfrom) means it was the requester.
    return { kind: 'transfer', id: parseTransferId(idText), callerIsRequester: lastGiven(args, ['reqto', 'reqfrom']) !== 'reqto' };
  }
  const rule = parsed.value('rule');
  if (rule === undefined || rule === '') throw new UsageError('-rule RULE is required (or -id ID)');
  return { kind: 'file', rule, request: request ?? 'exist', file: parsed.value('file') ?? '' };
}

export async function getinfoCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const { io } = ctx;
  return guarded(io, 'getinfo', { badSetup: GETINFO_EXIT.badArgs, unexpected: GETINFO_EXIT.unexpected }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    const parsed = parseArgs(args, { options: OPTIONS, maxPositionals: 0, command: 'getinfo' });
    const format = formatOf(parsed);
    const to = parsed.value('to');
    if (args.length < MIN_ARGS || to === undefined || to === '') throw new UsageError('expected -to HOST with -rule RULE [-file PATTERN] [-exist|-detail|-list|-mlsx], or -to HOST -id ID');
    const query = parseGetinfoQuery(args, parsed);
    return withSession(configFile, {}, async (session) => {
      const partnerId = session.realHostId(to);
      const fields = new ResultFields();
      const finish = (status: ResultStatus): void => {
        const statusText = informationStatusText(status);
        printResult(io, format, LABEL, statusText, resultObject(LABEL, argsField(configFile, args), status, statusText, fields));
      };
      try {
        const pool = await session.pool();
        if (query.kind === 'file') {
          const info = await getFileInfo(pool, partnerId, query.rule, query.request, query.file, session.config.limits.timeoutCon);
          fields.set('remote', partnerId).set('nb', info.lines.length);
          info.lines.forEach((line, i) => fields.set(`file${i + 1}`, line));
        } else {
          const info = await getTransferInfo(pool, partnerId, query.id, query.callerIsRequester, session.config.limits.timeoutCon);
          const record = runnersFromXml(info.header)[0];
          if (record === undefined) throw new R66Error(ErrorCode.Internal, `the partner's answer holds no transfer record`);
          addRecordFields(fields, record, partnerId);
        }
        finish(0);
        return GETINFO_EXIT.ok;
      } catch (err) {
        if (!(err instanceof R66Error)) throw err;
        fields.set('remote', partnerId).set('error', `${err.code.name}: ${err.message}`);
        finish(2);
        return GETINFO_EXIT.partnerError;
      }
    });
  });
}
