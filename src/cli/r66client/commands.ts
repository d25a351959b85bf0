/** The client's transfer, information and business commands, by the name typed after svc-r66client. */
import type { ClientCommandContext } from './session.js';
import { lazyCommand, type CommandHandler } from '../dispatch.js';

type Handler = CommandHandler<ClientCommandContext>;

// Each module is loaded when its command runs (lazyCommand).
const send = lazyCommand<ClientCommandContext>(async () => (await import('./send.js')).sendCommand);
const msend = lazyCommand<ClientCommandContext>(async () => (await import('./send.js')).msendCommand);
const asend = lazyCommand<ClientCommandContext>(async () => (await import('./submit.js')).asendCommand);
const masend = lazyCommand<ClientCommandContext>(async () => (await import('./submit.js')).masendCommand);
const transfer = lazyCommand<ClientCommandContext>(async () => (await import('./transfer.js')).transferCommand);
const getinfo = lazyCommand<ClientCommandContext>(async () => (await import('./getinfo.js')).getinfoCommand);
const message = lazyCommand<ClientCommandContext>(async () => (await import('./message.js')).messageCommand);
const business = lazyCommand<ClientCommandContext>(async () => (await import('./business.js')).businessCommand);
const spool = lazyCommand<ClientCommandContext>(async () => (await import('./spool.js')).spoolCommand);
const watcher = lazyCommand<ClientCommandContext>(async () => (await import('./watcher.js')).watcherCommand);
const icaptest = lazyCommand<ClientCommandContext>(async () => (await import('./icaptest.js')).icaptestCommand);
const gui = lazyCommand<ClientCommandContext>(async () => (await import('./gui.js')).guiCommand);

export const CLIENT_NETWORK_COMMANDS: Record<string, Handler> = {
  send,
  asend,
  msend,
  masend,
  transfer,
  getinfo,
  message,
  business,
  // The FileWatcher (filewatcher.md §1).
  spool,
  watcher,
  icaptest,
  // A local web page instead of the original's desktop client (docs/web-ui.md).
  gui,
  // The seed names these raw entry points (cli.md §5): accepted as command names too.
  Message: message,
  BusinessRequest: business,
};
