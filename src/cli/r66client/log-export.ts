/**
 * `log-export` (cli.md §3.10, history.md §4.1): asks a server over R66 to export its transfer
 * history into its archive directory, and optionally to purge it.
 *
 * - `svc-r66client log-export [OPTIONS]` is the wrapper: `Exporting transfer history... ` then
 *   `done` (exit 0) or `*** ERROR ***` with the tool's output on stderr (exit 1).
 * - `LogExport` / `LogExtendedExport` are the original's entry points (cli.md §5.3): the tool's own
 *   exit codes (0, 1 bad arguments, 10 unknown host, else the ordinal of the failure's code).
 *
 * Only the start/stop/purge options send the legacy order (Valid 16/17); any extended filter, or the
 * LogExtendedExport entry point, sends the JSON LogJsonPacket. Options are case-insensitive and
 * unknown ones are ignored, as in the basic original.
 *
 * `-ruleDownload RULE` (with `-host`) then fetches the exported file from that server by a receive
 * transfer with RULE (the file is asked by its name in the rule's send directory: the rule's send
 * path on the server must be its archive directory), and `-import` loads the fetched file's
 * transfers into this client's own database (inserted, or replaced by key), as the extended
 * original does (cli.md §3.10, database.md §10.1).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { exportHistory, type HistoryExportOrder } from '../../client/admin-exports.js';
import { ErrorCode } from '../../model/error-code.js';
import { runnersFromXml } from '../../store/index.js';
import { R66Error } from '../../model/r66-error.js';
import { parseArgs, type OptionSpec, type ParsedArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { ClientSetupError, configFileAndArgs, withSession, type ClientCommandContext, type ClientSession } from './session.js';
import { openEngine } from './send.js';
import { EXPORT_TOOL_EXIT, EXPORT_WRAPPER_EXIT, exitCodeOf, exitCodeOfError } from '../exit-codes.js';
import type { Io } from '../io.js';
import { bigintOption } from '../number-option.js';


/** The outcome of a tool run: its exit code and the lines it would have logged. */
export interface ToolRun {
  code: number;
  lines: string[];
}

/** A tool failure with its exit code (bad arguments 1, unknown host 10, code ordinal). */
class ToolFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Drops the options a tool does not know (the original ignored them), keeping their order. */
export function knownOptionsOnly(args: readonly string[], options: readonly OptionSpec[]): { kept: string[]; ignored: string[] } {
  const names = new Map(options.map((o) => [o.name.toLowerCase(), o] as const));
  const kept: string[] = [];
  const ignored: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const opt = a.startsWith('-') ? names.get(a.replace(/^--?/, '').toLowerCase()) : undefined;
    if (opt === undefined) {
      ignored.push(a);
      continue;
    }
    kept.push(a);
    if (opt.value !== undefined && i + 1 < args.length) kept.push(args[++i] as string);
  }
  return { kept, ignored };
}

/**
 * The server to ask: `-host` (aliases resolved), else this client's TLS host id, i.e. its own
 * server (cli.md §3.10). Unknown: exit 10 (basic tools), 2 for the extended history export.
 */
export async function targetOf(session: ClientSession, host: string | undefined, unknownExit: number = EXPORT_TOOL_EXIT.unknownHost): Promise<string> {
  const id = host !== undefined && host !== '' ? session.realHostId(host) : (session.config.sslHostId ?? session.config.hostId);
  if ((await session.partner(id)) === undefined) throw new ToolFailure(`host ${id} is not known in the partner table`, unknownExit);
  return id;
}

/** Runs a tool body with the session; every failure becomes its exit code and one line. */
export async function runTool(configFile: string, body: (session: ClientSession, lines: string[]) => Promise<void>): Promise<ToolRun> {
  const lines: string[] = [];
  try {
    await withSession(configFile, {}, (session) => body(session, lines));
    return { code: EXPORT_TOOL_EXIT.ok, lines };
  } catch (err) {
    if (err instanceof ToolFailure) return { code: err.exitCode, lines: [...lines, err.message] };
    if (err instanceof UsageError || err instanceof ClientSetupError) return { code: EXPORT_TOOL_EXIT.badArgs, lines: [...lines, err.message] };
    if (err instanceof R66Error) return { code: exitCodeOfError(err), lines: [...lines, `${err.code.name}: ${err.message}`] };
    return { code: EXPORT_TOOL_EXIT.badArgs, lines: [...lines, `unexpected error: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

/** The wrapper's rendering (cli.md §3.10/§3.11): banner, optional tool output, done or error. */
export function printWrapper(io: Io, banner: string, run: ToolRun, showOutput: boolean): number {
  io.out(banner);
  if (run.code === EXPORT_TOOL_EXIT.ok) {
    if (showOutput) for (const l of run.lines) io.out(`${l}\n`);
    io.out('done\n');
    return EXPORT_WRAPPER_EXIT.ok;
  }
  io.out('*** ERROR ***\n');
  for (const l of run.lines) io.err(`${l}\n`);
  return EXPORT_WRAPPER_EXIT.failed;
}

/** The raw tool's rendering: its lines on stdout (success) or stderr (failure), its exit code. */
export function printTool(io: Io, run: ToolRun): number {
  for (const l of run.lines) (run.code === EXPORT_TOOL_EXIT.ok ? io.out : io.err)(`${l}\n`);
  return run.code;
}

const EXTENDED_VALUES = ['startid', 'stopid', 'rule', 'request', 'ruledownload'] as const;
const EXTENDED_FLAGS = ['pending', 'transfer', 'done', 'error', 'import'] as const;
const OPTIONS: OptionSpec[] = [
  { name: 'purge' }, { name: 'clean' }, { name: 'start', value: 'DATE' }, { name: 'stop', value: 'DATE' }, { name: 'host', value: 'HOST' },
  ...EXTENDED_VALUES.map((name) => ({ name, value: 'VALUE' })), ...EXTENDED_FLAGS.map((name) => ({ name })),
];

/**
 * `-ruleDownload RULE`: fetches the file the server wrote, by a receive transfer with RULE; with
 * `-import`, loads its transfers into this client's database. Returns the lines to print.
 */
async function downloadExport(session: ClientSession, target: string, rule: string, file: string, importIt: boolean): Promise<string[]> {
  const engine = await openEngine(session);
  const outcome = await engine.transfer({ partner: target, rule, file: path.basename(file), noFollow: true }).finally(() => engine.close());
  if (outcome.code !== ErrorCode.CompleteOk && outcome.code !== ErrorCode.Warning) {
    throw new ToolFailure(`download of ${path.basename(file)} with rule ${rule} failed: ${outcome.code.name}: ${outcome.message}`, exitCodeOf(outcome.code));
  }
  const local = outcome.file ?? '';
  const lines = [`downloaded to ${local} (transfer ${outcome.record.specialId})`];
  if (!importIt) return lines;
  let records;
  try {
    records = runnersFromXml(await readFile(local, 'utf8'));
  } catch (err) {
    throw new ToolFailure(`the downloaded file ${local} is not a transfer history: ${err instanceof Error ? err.message : String(err)}`, EXPORT_TOOL_EXIT.badArgs);
  }
  await session.store.runner.importRows(records);
  lines.push(`${records.length} transfers imported into the local database`);
  return lines;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * A date of the command line (history.md §2.3): `yyyyMMddHHmmssSSS`, possibly truncated (missing
 * digits are zeros), after removing `/ : . -` and spaces; local time. Unparsable: undefined.
 */
export function parseExportDate(text: string): Date | undefined {
  const digits = text.replace(/[/:.\- ]/g, '');
  if (!/^\d{4,17}$/.test(digits)) return undefined;
  const full = digits.padEnd(17, '0');
  const n = (from: number, to: number): number => Number(full.slice(from, to));
  const month = Math.max(n(4, 6), 1);
  const day = Math.max(n(6, 8), 1);
  const d = new Date(n(0, 4), month - 1, day, n(8, 10), n(10, 12), n(12, 14), n(14, 17));
  return Number.isNaN(d.getTime()) || d.getMonth() !== month - 1 ? undefined : d;
}

/** The time window of the command line, with the original's defaults (history.md §2.3). */
export function exportWindow(startText: string | undefined, stopText: string | undefined, now = new Date()): { start?: Date; stop?: Date } {
  const start = startText === undefined ? undefined : parseExportDate(startText);
  let stop = stopText === undefined ? undefined : parseExportDate(stopText);
  if (start !== undefined && stop !== undefined && stop.getTime() <= start.getTime()) stop = new Date(start.getTime() + DAY_MS - 1);
  // Neither bound: everything that started before today.
  if (start === undefined && stop === undefined) stop = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return { ...(start ? { start } : {}), ...(stop ? { stop } : {}) };
}

/** `-startid`/`-stopid`: a transfer id (signed 64-bit), sent on as its decimal text. */
function idOption(parsed: ParsedArgs, name: 'startid' | 'stopid'): string | undefined {
  const text = parsed.value(name);
  return text === undefined ? undefined : String(bigintOption(text, `log-export -${name}`));
}

function orderOf(parsed: ParsedArgs, extendedTool: boolean): HistoryExportOrder {
  const { start, stop } = exportWindow(parsed.value('start'), parsed.value('stop'));
  const extended = extendedTool || EXTENDED_VALUES.some((n) => parsed.has(n)) || EXTENDED_FLAGS.some((n) => parsed.has(n));
  const order: HistoryExportOrder = { purge: parsed.has('purge'), ...(start ? { start } : {}), ...(stop ? { stop } : {}) };
  if (extended) {
    order.extended = {
      clean: parsed.has('clean'), startId: idOption(parsed, 'startid'), stopId: idOption(parsed, 'stopid'), rule: parsed.value('rule'), request: parsed.value('request'),
      // The extended original always exports the finished transfers (cli.md §3.10).
      pending: parsed.has('pending'), transfer: parsed.has('transfer'), done: true, error: parsed.has('error'),
    };
  }
  return order;
}

async function runLogExport(ctx: ClientCommandContext, argv: readonly string[], extendedTool: boolean): Promise<ToolRun> {
  const { configFile, args } = configFileAndArgs(ctx.instance, argv);
  return runTool(configFile, async (session, lines) => {
    const { kept, ignored } = knownOptionsOnly(args, OPTIONS);
    if (ignored.length > 0) session.logger.warn({ ignored }, 'log-export: options ignored');
    const parsed = parseArgs(kept, { options: OPTIONS, maxPositionals: 0, command: 'log-export' });
    const download = parsed.value('ruledownload');
    if (parsed.has('import') && download === undefined) throw new UsageError('-import needs -ruleDownload RULE (the file to import is the one downloaded)');
    if (download !== undefined && (parsed.value('host') ?? '') === '') throw new UsageError('-ruleDownload needs -host HOST (the server to download from)');
    const order = orderOf(parsed, extendedTool);
    // The extended tool (any extended option, or its entry point) exits 2 for an unknown host (cli.md §3.10).
    const target = await targetOf(session, parsed.value('host'), order.extended ? EXPORT_TOOL_EXIT.unknownHostExtended : EXPORT_TOOL_EXIT.unknownHost);
    const ownIds = [session.config.hostId, session.config.sslHostId];
    if (parsed.has('clean') && order.extended === undefined && ownIds.includes(target)) {
      // Basic tool: the clean runs here, on the database this client shares with its own server.
      await session.store.runner.markFinishedAsDone(session.config.hostId);
    }
    const answer = await exportHistory(await session.pool(), target, order, session.config.limits.timeoutCon);
    const line = `history of ${target} exported to ${answer.file}${answer.exported !== undefined ? ` (${answer.exported} transfers)` : ''}${order.purge ? `, ${answer.purged} purged` : ''}`;
    session.logger.info({ file: answer.file, exported: answer.exported, purged: answer.purged }, 'log export done');
    lines.push(line);
    if (download !== undefined) lines.push(...(await downloadExport(session, target, download, answer.file, parsed.has('import'))));
  });
}

/** `svc-r66client log-export`: the wrapper's output and exit 0/1. */
export async function logExportCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return printWrapper(ctx.io, 'Exporting transfer history... ', await runLogExport(ctx, argv, false), false);
}

/** `LogExport` (the original's basic entry point): the tool's exit codes. */
export async function logExportTool(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return printTool(ctx.io, await runLogExport(ctx, argv, false));
}

/** `LogExtendedExport`: always the JSON order, finished transfers always selected. */
export async function logExtendedExportTool(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return printTool(ctx.io, await runLogExport(ctx, argv, true));
}
