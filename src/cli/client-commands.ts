/** The client's transfer, information and business commands, by the name typed after svc-r66client. */
import { businessCommand } from './client-business.js';
import { getinfoCommand } from './client-getinfo.js';
import { messageCommand } from './client-message.js';
import { msendCommand, sendCommand } from './client-send.js';
import type { ClientCommandContext } from './client-session.js';
import { asendCommand, masendCommand } from './client-submit.js';
import { transferCommand } from './client-transfer.js';
import type { CommandHandler } from './dispatch.js';

export const CLIENT_NETWORK_COMMANDS: Record<string, CommandHandler<ClientCommandContext>> = {
  send: sendCommand,
  asend: asendCommand,
  msend: msendCommand,
  masend: masendCommand,
  transfer: transferCommand,
  getinfo: getinfoCommand,
  message: messageCommand,
  business: businessCommand,
  // The seed names these raw entry points (cli.md §5): accepted as command names too.
  Message: messageCommand,
  BusinessRequest: businessCommand,
};
