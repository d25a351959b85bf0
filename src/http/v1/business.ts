/**
 * v1 `/business` (model Business, rest-v1.md §12.2): runs a registered business task by name.
 * `toApplied=true` needs the user in this server's business white list (server.xml `business`
 * and the HOSTCONFIG row), else JSON 401.
 */
import type { JsonCommand } from '../../protocol/index.js';
import type { RestListenerContext } from '../context.js';
import { parseBusiness } from '../../config/hostconfig-xml.js';
import type { ActionResult } from './actions.js';
import type { V1Identity } from './auth.js';
import { packetJson } from './packets.js';

const command = 'ExecuteBusiness';
const model = 'Business';

async function whitelisted(ctx: RestListenerContext, user: string): Promise<boolean> {
  const { config, store } = ctx.services;
  if (config.business.includes(user)) return true;
  const row = await store.hostConfigs.get(config.hostId);
  return row !== undefined && parseBusiness(row.business).includes(user);
}

export async function businessAction(ctx: RestListenerContext, id: V1Identity, cmd: JsonCommand | undefined): Promise<ActionResult> {
  if (cmd === undefined) return { code: 400, command, model, detail: 'a BusinessRequestJsonPacket body is required' };
  if (cmd.jsonClass !== 'BusinessRequestJsonPacket') return { code: 412, command, model, detail: 'BusinessRequestJsonPacket expected' };
  if (cmd.toApplied && !(await whitelisted(ctx, id.user))) return { code: 401, httpStatus: 401, command, model, detail: 'user not allowed to run business requests' };
  const name = cmd.className ?? '';
  const runner = ctx.services.business;
  const failed = (detail: string): ActionResult => ({ code: 406, command, model, results: [packetJson({ ...cmd, validated: false })], detail });
  if (runner === undefined || !runner.has(name)) return failed(`business task ${name} is not known on this server`);
  // The task sees "<className> <arguments> <toApplied>" (arguments left out when null), as in the original.
  const argument = [name, ...(cmd.arguments === null ? [] : [cmd.arguments]), String(cmd.toApplied)].join(' ');
  let outcome: { ok: boolean; result: string | null };
  try {
    outcome = await runner.run({ className: name, arguments: argument, extraArguments: cmd.extraArguments, delayMs: cmd.delay, user: id.user });
  } catch (err) {
    ctx.services.log.warn({ task: name, err: err instanceof Error ? err.message : String(err) }, 'business task failed');
    return failed(`business task ${name} failed`);
  }
  if (!outcome.ok) return failed(`business task ${name} failed${outcome.result ? `: ${outcome.result}` : ''}`);
  const answer = outcome.result === null ? cmd : { ...cmd, arguments: outcome.result };
  return { code: 200, command, model, results: [packetJson(answer)], ...(outcome.result === null ? {} : { detail: outcome.result }) };
}
