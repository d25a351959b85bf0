/**
 * `initdb`, `loadauth`, `loadrule`, `loadconf` of both wrappers (cli.md §2.5-2.8, §3.9, §4): the
 * wrapper lines (`Initializing database... done`) around the database tool, whose own progress
 * lines are shown only when it fails, as the original wrappers do.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type OptionSpec } from './args.js';
import { UsageError } from './cli-error.js';
import { bigintOption } from './number-option.js';
import { DBTOOL_EXIT, EXIT_INITDB_SQL, EXIT_OK } from './exit-codes.js';
import { configFileOf, type Instance, type Side } from './instance.js';
import type { Io } from './io.js';
import { DatabaseToolError, runDatabaseTool, type DatabaseToolOptions } from '../server/database-tool.js';
import { createLogger } from '../server/logger.js';

export interface DbCommandContext {
  instance: Instance;
  side: Side;
  io: Io;
}

/** Options of the database tool (cli.md §4); names are case-insensitive. */
const INITDB_OPTIONS: OptionSpec[] = [
  { name: 'initdb' },
  { name: 'upgradeDb' },
  { name: 'dir', value: 'DIR' },
  { name: 'auth', value: 'FILE' },
  { name: 'limit', value: 'FILE' },
  { name: 'loadAlias', value: 'FILE' },
  { name: 'loadRoles', value: 'FILE' },
  { name: 'loadBusiness', value: 'FILE' },
  { name: 'loadExtendedTaskFactory', value: 'CLASSLIST' },
  { name: 'minimalSeq', value: 'N' },
];

type ToolRequest = Omit<DatabaseToolOptions, 'configFile' | 'side' | 'log' | 'print'>;

/** Runs the tool; returns 0, or the tool's exit code with its captured lines and the error. */
async function runTool(ctx: DbCommandContext, request: ToolRequest): Promise<{ code: number; output: string; sqlError: boolean }> {
  const lines: string[] = [];
  // The tool's log lines go to stderr: stdout carries the wrapper's documented lines.
  const log = createLogger({ level: process.env.SVC_LOG_LEVEL ?? 'warn', fd: 2 });
  try {
    await runDatabaseTool({ ...request, configFile: configFileOf(ctx.instance, ctx.side), side: ctx.side, log, print: (l) => lines.push(l) });
    return { code: EXIT_OK, output: '', sqlError: false };
  } catch (err) {
    if (!(err instanceof DatabaseToolError)) throw err;
    lines.push(err.message);
    return { code: err.exitCode, output: `${lines.join('\n')}\n`, sqlError: err.exitCode === DBTOOL_EXIT.databaseError };
  }
}

export async function initdbCommand(ctx: DbCommandContext, args: readonly string[]): Promise<number> {
  let parsed;
  let minimalSeq: bigint | undefined;
  try {
    parsed = parseArgs(args, { options: INITDB_OPTIONS, maxPositionals: 0, command: 'initdb' });
    // Checked here, before the database is touched: a signed 64-bit id (the original ignored a
    // text it could not read, and took any 64-bit value).
    const seqText = parsed.value('minimalSeq');
    minimalSeq = seqText === undefined ? undefined : bigintOption(seqText, 'initdb -minimalSeq');
  } catch (err) {
    if (err instanceof UsageError) {
      ctx.io.err(`*** ERROR ***\n${err.message}\n`);
      return DBTOOL_EXIT.loadFailed;
    }
    throw err;
  }
  if (ctx.side === 'server') ctx.io.out('Initializing database... ');
  const factories = parsed.value('loadExtendedTaskFactory');
  const result = await runTool(ctx, {
    initdb: true, // the wrappers always prepend -initdb, which implies -upgradeDb (cli.md §2.5)
    upgradeDb: true,
    ruleDir: parsed.value('dir'),
    authFile: parsed.value('auth'),
    limitFile: parsed.value('limit'),
    aliasFile: parsed.value('loadAlias'),
    rolesFile: parsed.value('loadRoles'),
    businessFile: parsed.value('loadBusiness'),
    extendedTaskFactories: factories === undefined ? [] : factories.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    minimalSeq: minimalSeq?.toString(),
  });
  if (result.code === EXIT_OK) {
    ctx.io.out('done\n');
    if (minimalSeq !== undefined) ctx.io.out(`Transfer ids restart at ${minimalSeq}\n`);
    return EXIT_OK;
  }
  ctx.io.out('*** ERROR ***\n');
  ctx.io.err(result.output);
  return result.sqlError ? EXIT_INITDB_SQL : result.code;
}

function oneArgument(args: readonly string[], command: string, what: string): string {
  const parsed = parseArgs(args, { options: [], maxPositionals: 1, command });
  const value = parsed.positionals[0];
  if (value === undefined) throw new UsageError(`${command} expects ${what}`);
  return value;
}

/** loadauth / loadrule: the wrapper line, then `done` (0) or `*** ERROR ***` (1). */
async function loadCommand(ctx: DbCommandContext, banner: string, request: ToolRequest): Promise<number> {
  ctx.io.out(banner);
  const result = await runTool(ctx, request);
  if (result.code === EXIT_OK) {
    ctx.io.out('done\n');
    return EXIT_OK;
  }
  ctx.io.out('*** ERROR ***\n');
  ctx.io.err(result.output);
  return DBTOOL_EXIT.loadFailed;
}

export async function loadauthCommand(ctx: DbCommandContext, args: readonly string[]): Promise<number> {
  const file = oneArgument(args, 'loadauth', 'one argument: the authent.xml FILE to load');
  return loadCommand(ctx, 'Loading authentication information... ', { authFile: file });
}

export async function loadruleCommand(ctx: DbCommandContext, args: readonly string[]): Promise<number> {
  const dir = oneArgument(args, 'loadrule', 'one argument: the DIR holding *.rule.xml / *.rules.xml files');
  return loadCommand(ctx, 'Loading rule information... ', { ruleDir: dir });
}

/**
 * The partner file `loadconf` loads: the server's Linux script names `authent-server.xml`, its
 * Windows script and the client `authent.xml`; the server takes the first that exists.
 */
export function loadconfAuthentFile(instance: Instance, side: Side): string {
  const serverFile = join(instance.confDir, 'authent-server.xml');
  if (side === 'server' && existsSync(serverFile)) return serverFile;
  return join(instance.confDir, 'authent.xml');
}

export async function loadconfCommand(ctx: DbCommandContext, args: readonly string[]): Promise<number> {
  parseArgs(args, { options: [], maxPositionals: 0, command: 'loadconf' });
  ctx.io.out('Loading configuration in database... \n');
  const auth = await loadCommand(ctx, 'Loading authentication information... ', { authFile: loadconfAuthentFile(ctx.instance, ctx.side) });
  if (auth !== EXIT_OK) return DBTOOL_EXIT.loadFailed;
  return loadCommand(ctx, 'Loading rule information... ', { ruleDir: ctx.instance.confDir });
}
