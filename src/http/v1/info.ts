/**
 * v1 `/info` (model Information, rest-v1.md §12.4): file information in a rule's send directory
 * (`idRequest=false`) or a transfer's record (`idRequest=true`). `/control` reuses the second.
 */
import path from 'node:path';
import { hasWildcard } from '../../fs/glob.js';
import { listEntries, mlsxLine, statEntry } from '../../fs/listing.js';
import { isPathNotAllowed, resolveInside } from '../../fs/safe-path.js';
import type { JsonCommand, JsonCommandOf } from '../../protocol/index.js';
import type { RestListenerContext } from '../context.js';
import type { JsonValue } from '../json.js';
import { ruleAllowsHost } from '../../model/rule.js';
import { isSelf, type ActionResult } from './actions.js';
import type { V1Identity } from './auth.js';
import { transferItem } from './models/transfers.js';

type Info = JsonCommandOf<'InformationJsonPacket'>;

/** Virtual path of an absolute path under the home (`/out/a.csv`), as the R66 answer lists it. */
function virtualPath(home: string, abs: string): string {
  return '/' + path.relative(home, abs).split(path.sep).join('/');
}

/**
 * Variant 1: `results[0]` is a string holding JSON (§12.4). Failures are 400/406, unknown rule 400/400.
 * As for the R66 information request (r66-protocol.md §9.10), an authenticated user may only look
 * into the directory of a rule whose host list allows it (or is empty); the server itself may always:
 * a refusal is JSON 401 like the other action-level refusals (§9), naming neither files nor rules' lists.
 */
async function fileInformation(ctx: RestListenerContext, id: V1Identity, cmd: Info): Promise<ActionResult> {
  const base = { command: 'GetInformation', model: 'Information' };
  const { config, store } = ctx.services;
  const rule = cmd.rulename ? await store.rules.get(cmd.rulename) : undefined;
  if (rule === undefined) return { ...base, code: 400, detail: `rule ${cmd.rulename ?? ''} not found` };
  if (ctx.rest.authenticated && !isSelf(ctx, id) && !ruleAllowsHost(rule, id.user)) {
    return { ...base, code: 401, httpStatus: 401, detail: `rule ${rule.idRule} is not allowed for ${id.user}` };
  }
  const home = config.directories.serverHome;
  const dir = rule.sendPath !== '' ? path.join(home, rule.sendPath) : config.directories.out;
  let target: string;
  try {
    target = await resolveInside(dir, cmd.filename ?? '');
  } catch (err) {
    if (isPathNotAllowed(err)) return { ...base, code: 406, detail: 'the file name is outside the rule directory' };
    throw err;
  }
  let answer: Record<string, unknown>;
  switch (cmd.request) {
    case 0:
      answer = { exist: hasWildcard(path.basename(target)) ? (await listEntries(target)).length > 0 : (await statEntry(target)) !== undefined };
      break;
    case 1: {
      const entry = await statEntry(target);
      if (entry === undefined) return { ...base, code: 406, detail: `no file ${cmd.filename ?? ''}` };
      answer = { mls: mlsxLine(entry) };
      break;
    }
    case 2:
      answer = { ls: (await listEntries(target)).map((e) => virtualPath(home, e.path)) };
      break;
    case 3:
      answer = { mls: (await listEntries(target)).map((e) => mlsxLine(e)) };
      break;
    default:
      return { ...base, code: 406, detail: `unknown information request ${cmd.request}` };
  }
  return { ...base, code: 200, results: [JSON.stringify(answer)] };
}

/**
 * Variant 2: the transfer `id` between this server and the host named in `rulename` (the user when
 * empty); `to` = that host is the requester. `failure` is the JSON code of a miss (400 for /info,
 * 406 for /control).
 */
export async function transferInformation(ctx: RestListenerContext, id: V1Identity, cmd: Info, model: string, failure: number): Promise<ActionResult> {
  const base = { command: 'GetTransferInformation', model };
  const { config, store } = ctx.services;
  const remoteId = cmd.rulename ? cmd.rulename : id.user;
  const remote = await store.hosts.get(remoteId);
  if (remote === undefined) return { ...base, code: 400, detail: `host ${remoteId} is not known` };
  // This server is known to a TLS partner by its TLS host id.
  const local = remote.isSsl && config.sslHostId !== undefined ? config.sslHostId : config.hostId;
  const key = cmd.to
    ? { specialId: cmd.id, requester: remoteId, requested: local, ownerReq: config.hostId }
    : { specialId: cmd.id, requester: local, requested: remoteId, ownerReq: config.hostId };
  const record = await store.runner.get(key);
  if (record === undefined) return { ...base, code: failure, detail: `transfer ${cmd.id} not found` };
  return { ...base, code: 200, results: [transferItem(record) as JsonValue] };
}

export async function infoAction(ctx: RestListenerContext, id: V1Identity, cmd: JsonCommand | undefined): Promise<ActionResult> {
  if (cmd === undefined) return { code: 400, command: 'GetInformation', model: 'Information', detail: 'an InformationJsonPacket body is required' };
  if (cmd.jsonClass !== 'InformationJsonPacket') return { code: 412, command: 'GetInformation', model: 'Information', detail: 'InformationJsonPacket expected' };
  return cmd.idRequest ? transferInformation(ctx, id, cmd, 'Information', 400) : fileInformation(ctx, id, cmd);
}
