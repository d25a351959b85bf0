/**
 * `config-export` (cli.md §3.11, history.md §5.2): asks a server over R66 to write its partners,
 * rules, business, aliases and roles into its archive directory (`<hostid>_Authentications.xml`,
 * `<hostid>.rules.xml`, `<hostid>_Business.xml`, `<hostid>_Aliases.xml`, `<hostid>_Roles.xml`).
 *
 * `svc-r66client config-export` is the wrapper (`Exporting configuration... `, the tool's output,
 * `done` exit 0 or `*** ERROR ***` exit 1); `ConfigExport` is the original's entry point with the
 * tool's exit codes (0, 1 bad arguments, 10 unknown host, else the failure code's ordinal).
 */
import { exportConfiguration, type ConfigExportAnswer } from '../../client/admin-exports.js';
import { parseArgs, type OptionSpec } from '../args.js';
import { UsageError } from '../cli-error.js';
import { knownOptionsOnly, printTool, printWrapper, runTool, targetOf, type ToolRun } from './log-export.js';
import { configFileAndArgs, type ClientCommandContext } from './session.js';

const OPTIONS: OptionSpec[] = [
  { name: 'hosts' }, { name: 'rules' }, { name: 'business' }, { name: 'alias' },
  // The original's code matches -roles; its help and documentation say -role (history.md §5.2).
  { name: 'roles', aliases: ['role'] },
  { name: 'host', value: 'HOST' },
];

const LABELS: ReadonlyArray<[Exclude<keyof ConfigExportAnswer, 'legacy'>, string]> = [
  ['hosts', 'hosts'], ['rules', 'rules'], ['business', 'business'], ['aliases', 'aliases'], ['roles', 'roles'],
];

async function runConfigExport(ctx: ClientCommandContext, argv: readonly string[]): Promise<ToolRun> {
  const { configFile, args } = configFileAndArgs(ctx.instance, argv);
  return runTool(configFile, async (session, lines) => {
    const { kept, ignored } = knownOptionsOnly(args, OPTIONS);
    if (ignored.length > 0) session.logger.warn({ ignored }, 'config-export: options ignored');
    const parsed = parseArgs(kept, { options: OPTIONS, maxPositionals: 0, command: 'config-export' });
    const order = { hosts: parsed.has('hosts'), rules: parsed.has('rules'), business: parsed.has('business'), aliases: parsed.has('alias'), roles: parsed.has('roles') };
    // The original refuses business/alias/roles alone before sending anything (cli.md §3.11).
    if (!order.hosts && !order.rules) throw new UsageError('at least -hosts or -rules is required');
    const target = await targetOf(session, parsed.value('host'));
    const files = await exportConfiguration(await session.pool(), target, order, session.config.limits.timeoutCon);
    for (const [key, label] of LABELS) {
      if (!order[key]) continue;
      const file = files[key];
      if (file === null) lines.push(files.legacy && key !== 'hosts' && key !== 'rules' ? `${label}: not asked (${target} takes only hosts and rules: no JSON orders)` : `${label}: nothing exported`);
      else lines.push(file === '' ? `${label} exported into the archive directory of ${target} (its answer names no file)` : `${label} exported to ${file}`);
    }
  });
}

/** `svc-r66client config-export`: the wrapper's output and exit 0/1. */
export async function configExportCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return printWrapper(ctx.io, 'Exporting configuration... ', await runConfigExport(ctx, argv), true);
}

/** `ConfigExport` (the original's entry point): the tool's exit codes. */
export async function configExportTool(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return printTool(ctx.io, await runConfigExport(ctx, argv));
}
