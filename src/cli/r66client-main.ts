/**
 * `svc-r66client [HOSTID] COMMAND [ARGS...]` (cli.md §1, §3). Later commands (send, asend,
 * getinfo...) register in COMMANDS and in usage.ts's CLIENT_COMMANDS.
 */
import { initdbCommand, loadauthCommand, loadconfCommand, loadruleCommand, type DbCommandContext } from './db-commands.js';
import { CLIENT_NETWORK_COMMANDS } from './client-commands.js';
import { configExportCommand, configExportTool } from './client-config-export.js';
import { logExportCommand, logExportTool, logExtendedExportTool } from './client-log-export.js';
import { dispatch, type CommandHandler } from './dispatch.js';
import { selectInstance } from './instance.js';
import { processIo } from './io.js';
import { runMain } from './main-runner.js';
import { clientUsage } from './usage.js';

const COMMANDS: Record<string, CommandHandler<DbCommandContext>> = {
  initdb: initdbCommand,
  loadauth: loadauthCommand,
  loadrule: loadruleCommand,
  loadconf: loadconfCommand,
  ...CLIENT_NETWORK_COMMANDS,
  'log-export': logExportCommand,
  'config-export': configExportCommand,
  // The original's entry points (cli.md §5.3), with the tools' own exit codes.
  LogExport: logExportTool,
  LogExtendedExport: logExtendedExportTool,
  ConfigExport: configExportTool,
};

runMain('svc-r66client', processIo, async () => {
  const { instance, args } = selectInstance(process.argv.slice(2), 'client');
  return dispatch<DbCommandContext>('svc-r66client', args, COMMANDS, { instance, side: 'client', io: processIo }, clientUsage(), processIo);
});
