/** `svc-r66server [HOSTID] COMMAND [ARGS...]` (cli.md §1, §2). */
import { dispatch, lazyCommand, type CommandHandler } from '../dispatch.js';
import { selectInstance } from '../instance.js';
import { processIo } from '../io.js';
import { runMain } from '../main-runner.js';
import type { DbCommandContext } from '../db-commands.js';
import type { ServerCommandContext } from './service.js';
import { serverUsage } from '../usage.js';

// Every command's module is loaded only when that command runs: the service commands pull in the
// whole server and the database commands the store, which `-h` or `init` do not need (the CLI's
// start is paid by every command a script or a test runs).
const service = () => import('./service.js');
type DbCommands = typeof import('../db-commands.js');

/** A database command of db-commands.ts run on the server's side. */
function serverDbCommand(pick: (m: DbCommands) => CommandHandler<DbCommandContext>): CommandHandler<ServerCommandContext> {
  return lazyCommand(async () => {
    const command = pick(await import('../db-commands.js'));
    return (ctx, args) => command({ ...ctx, side: 'server' }, args);
  });
}

const COMMANDS: Record<string, CommandHandler<ServerCommandContext>> = {
  start: lazyCommand(async () => (await service()).startCommand),
  stop: lazyCommand(async () => (await service()).stopCommand),
  status: lazyCommand(async () => (await service()).statusCommand),
  restart: lazyCommand(async () => (await service()).restartCommand),
  initdb: serverDbCommand((m) => m.initdbCommand),
  loadauth: serverDbCommand((m) => m.loadauthCommand),
  loadrule: serverDbCommand((m) => m.loadruleCommand),
  loadconf: serverDbCommand((m) => m.loadconfCommand),
  init: lazyCommand(async () => (await import('./home-commands.js')).initCommand),
  partner: lazyCommand(async () => (await import('./home-commands.js')).partnerCommand),
  migrate: lazyCommand(async () => (await import('./migrate.js')).migrateCommand),
};

runMain('svc-r66server', processIo, async () => {
  const { instance, args } = selectInstance(process.argv.slice(2), 'server');
  return dispatch('svc-r66server', args, COMMANDS, { instance, io: processIo, env: process.env }, serverUsage(), processIo);
});
