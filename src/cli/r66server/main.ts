/** `svc-r66server [HOSTID] COMMAND [ARGS...]` (cli.md §1, §2). */
import { initdbCommand, loadauthCommand, loadconfCommand, loadruleCommand } from '../db-commands.js';
import { dispatch, lazyCommand, type CommandHandler } from '../dispatch.js';
import { selectInstance } from '../instance.js';
import { processIo } from '../io.js';
import { runMain } from '../main-runner.js';
import { restartCommand, startCommand, statusCommand, stopCommand, type ServerCommandContext } from './service.js';
import { serverUsage } from '../usage.js';

const COMMANDS: Record<string, CommandHandler<ServerCommandContext>> = {
  start: startCommand,
  stop: stopCommand,
  status: statusCommand,
  restart: restartCommand,
  initdb: (ctx, args) => initdbCommand({ ...ctx, side: 'server' }, args),
  loadauth: (ctx, args) => loadauthCommand({ ...ctx, side: 'server' }, args),
  loadrule: (ctx, args) => loadruleCommand({ ...ctx, side: 'server' }, args),
  loadconf: (ctx, args) => loadconfCommand({ ...ctx, side: 'server' }, args),
  init: lazyCommand(async () => (await import('./home-commands.js')).initCommand),
  partner: lazyCommand(async () => (await import('./home-commands.js')).partnerCommand),
  migrate: lazyCommand(async () => (await import('./migrate.js')).migrateCommand),
};

runMain('svc-r66server', processIo, async () => {
  const { instance, args } = selectInstance(process.argv.slice(2), 'server');
  return dispatch('svc-r66server', args, COMMANDS, { instance, io: processIo, env: process.env }, serverUsage(), processIo);
});
