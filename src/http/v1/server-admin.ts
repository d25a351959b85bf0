/**
 * v1 `PUT /server` (rest-v1.md §12.6): shutdown, restart, block or unblock new requests. Needs
 * role SYSTEM and the administrator key digest (§13.6); any refusal is 400/400 without saying
 * which check failed.
 */
import { hasRole, Role } from '../../config/index.js';
import { wireKeyMatches, type JsonCommand } from '../../protocol/index.js';
import { notifyBlockOrder } from '../../monitor/snmp/admin-order-warnings.js';
import type { RestListenerContext } from '../context.js';
import type { ActionResult } from './actions.js';
import type { V1Identity } from './auth.js';
import { packetJson } from './packets.js';

export function shutdownOrBlockAction(ctx: RestListenerContext, id: V1Identity, cmd: JsonCommand | undefined): ActionResult {
  const command = 'ShutdownOrBlock';
  const model = 'Server';
  if (cmd === undefined) return { code: 400, command, model, detail: 'a ShutdownOrBlockJsonPacket body is required' };
  if (cmd.jsonClass !== 'ShutdownOrBlockJsonPacket') return { code: 412, command, model, detail: 'ShutdownOrBlockJsonPacket expected' };
  const { services } = ctx;
  if (!hasRole(id.roles, Role.SYSTEM) || cmd.key === null || !wireKeyMatches(cmd.key, services.config.server.adminPassword)) {
    return { code: 400, command, model, detail: 'not allowed: role SYSTEM and the administrator key are required' };
  }
  const answer = { ...cmd, key: cmd.key };
  if (cmd.shutdownOrBlock) {
    services.log.warn({ user: id.user, restart: cmd.restartOrBlock }, 'shutdown requested through REST v1');
    // The answer goes out first, then the server stops (§12.6).
    return { code: 200, command, model, results: [packetJson(answer)], detail: cmd.restartOrBlock ? 'restarting' : 'shutting down', after: () => services.shutdown(cmd.restartOrBlock) };
  }
  services.blockRequests(cmd.restartOrBlock);
  notifyBlockOrder(services.notify, cmd.restartOrBlock, id.user);
  const text = cmd.restartOrBlock ? 'Block new request' : 'Unblock new request';
  return { code: 200, command, model, results: [packetJson({ ...answer, comment: text })], detail: text };
}
