/**
 * `svc-r66client [HOSTID] COMMAND [ARGS...]` (cli.md §1, §3). Later commands (send, asend,
 * getinfo...) register in COMMANDS and in usage.ts's CLIENT_COMMANDS.
 */
import { EnvSettingError } from '../../config/env-flag.js';
import { CliError } from '../cli-error.js';
import { keepClientOnBaselineCompilers } from './compiler.js';
import type { DbCommandContext } from '../db-commands.js';
import { CLIENT_NETWORK_COMMANDS } from './commands.js';
import { dispatch, lazyCommand, type CommandHandler } from '../dispatch.js';
import { selectInstance } from '../instance.js';
import { processIo } from '../io.js';
import { runMain } from '../main-runner.js';
import { clientUsage } from '../usage.js';
import { EXIT_BAD_ENVIRONMENT } from '../exit-codes.js';

type Handler = CommandHandler<DbCommandContext>;
const dbCommands = (): Promise<typeof import('../db-commands.js')> => import('../db-commands.js');
const logExport = (): Promise<typeof import('./log-export.js')> => import('./log-export.js');
const configExport = (): Promise<typeof import('./config-export.js')> => import('./config-export.js');

// Every module is loaded when its command runs (lazyCommand).
const COMMANDS: Record<string, Handler> = {
  initdb: lazyCommand(async () => (await dbCommands()).initdbCommand),
  loadauth: lazyCommand(async () => (await dbCommands()).loadauthCommand),
  loadrule: lazyCommand(async () => (await dbCommands()).loadruleCommand),
  loadconf: lazyCommand(async () => (await dbCommands()).loadconfCommand),
  ...CLIENT_NETWORK_COMMANDS,
  'log-export': lazyCommand(async () => (await logExport()).logExportCommand),
  'config-export': lazyCommand(async () => (await configExport()).configExportCommand),
  // The original's entry points (cli.md §5.3), with the tools' own exit codes.
  LogExport: lazyCommand(async () => (await logExport()).logExportTool),
  LogExtendedExport: lazyCommand(async () => (await logExport()).logExtendedExportTool),
  ConfigExport: lazyCommand(async () => (await configExport()).configExportTool),
};


runMain('svc-r66client', processIo, async () => {
  try {
    keepClientOnBaselineCompilers();
  } catch (err) {
    if (err instanceof EnvSettingError) throw new CliError(err.message, EXIT_BAD_ENVIRONMENT);
    throw err;
  }
  const { instance, args } = selectInstance(process.argv.slice(2), 'client');
  return dispatch<DbCommandContext>('svc-r66client', args, COMMANDS, { instance, side: 'client', io: processIo }, clientUsage(), processIo);
});
