/**
 * v1 action handlers (rest-v1.md §12): a JSON packet in, `{"@model", "results":[packet]}` out,
 * with the original's HTTP 400 + JSON code pairs (§3.4) for functional refusals.
 */
import { ConfigError, hasRole, Role } from '../../config/index.js';
import { jsonClassString, newJsonCommand, type JsonCommand } from '../../protocol/index.js';
import { CONFIG_ITEMS, ConfigTransferError, exportConfigV1, exportHistoryV1, importConfig, type ConfigItem, type ImportRequest, type ImportResult, type LogExportResult } from '../../admin/index.js';
import { ILLEGAL_SPECIAL_ID } from '../../model/transfer.js';
import { notifyBandwidthOrder, notifyOrder } from '../../monitor/snmp/admin-order-warnings.js';
import { limitsAfterOrder } from '../../operations/bandwidth.js';
import { fileReceivedFrom } from '../../admin/r66-imports.js';
import type { RestListenerContext } from '../context.js';
import type { JsonValue } from '../json.js';
import type { V1Identity } from './auth.js';
import { packetJson } from './packets.js';

/** Outcome of an action: JSON `code` (HTTP is 200 for 200, else 400 except role refusals 401). */
export interface ActionResult {
  code: number;
  httpStatus?: number;
  command: string;
  model: string;
  results?: JsonValue[];
  detail?: string;
  /** Runs once the answer is written (shutdown, restart). */
  after?: () => void;
}

/** "Self" = the user is this server's own host id (for the listener's TLS mode); it bypasses action roles (§9). */
export function isSelf(ctx: RestListenerContext, id: V1Identity): boolean {
  const { config } = ctx.services;
  return id.user === (ctx.rest.ssl ? config.sslHostId ?? config.hostId : config.hostId);
}

export async function bandwidthAction(ctx: RestListenerContext, id: V1Identity, method: string, cmd: JsonCommand | undefined): Promise<ActionResult> {
  const model = 'Bandwidth';
  const command = method === 'PUT' ? 'SetBandwidth' : 'GetBandwidth';
  if (!hasRole(id.roles, Role.LIMIT) && !isSelf(ctx, id)) return { code: 401, httpStatus: 401, command, model, detail: 'role LIMIT required' };
  if (cmd !== undefined && cmd.jsonClass !== 'BandwidthJsonPacket') return { code: 412, command, model, detail: 'BandwidthJsonPacket expected' };
  const packet = cmd ?? newJsonCommand('BandwidthJsonPacket', { requestUserPacket: 19 });
  if ((packet.setter && method !== 'PUT') || (!packet.setter && method !== 'GET') || (method === 'PUT' && cmd === undefined)) {
    return { code: 409, command, model, detail: 'setter does not match the method' };
  }
  const bw = ctx.services.bandwidth;
  if (packet.setter) {
    // The one rule of the bandwidth order (src/operations/bandwidth.ts), as the R66 request applies it.
    bw.set(limitsAfterOrder(bw.get(), {
      writeGlobal: packet.writeglobal, readGlobal: packet.readglobal, writeSession: packet.writesession, readSession: packet.readsession,
    }));
    notifyBandwidthOrder(ctx.services.notify, bw.get(), id.user);
  }
  const now = bw.get();
  const answer = { ...packet, writeglobal: BigInt(now.writeGlobal), readglobal: BigInt(now.readGlobal), writesession: BigInt(now.writeSession), readsession: BigInt(now.readSession) };
  return { code: 200, command, model, results: [packetJson(answer)] };
}

function optionalId(text: string | null): bigint | undefined {
  return text !== null && /^-?\d{1,19}$/.test(text.trim()) ? BigInt(text.trim()) : undefined;
}

export async function logAction(ctx: RestListenerContext, id: V1Identity, cmd: JsonCommand | undefined): Promise<ActionResult> {
  const model = 'Log';
  const command = 'GetLog';
  if (cmd === undefined) return { code: 400, command, model, detail: 'a LogJsonPacket body is required' };
  if (cmd.jsonClass !== 'LogJsonPacket' && cmd.jsonClass !== 'LogResponseJsonPacket') return { code: 412, command, model, detail: 'LogJsonPacket expected' };
  if (!hasRole(id.roles, Role.LOGCONTROL) && !isSelf(ctx, id)) return { code: 400, command, model, detail: 'role LOGCONTROL required' };
  const { services } = ctx;
  let r: LogExportResult;
  try {
    r = await exportHistoryV1({ store: services.store, hostId: services.config.hostId, archiveDir: services.config.directories.arch, now: services.now }, {
      start: cmd.start === null ? undefined : new Date(cmd.start), stop: cmd.stop === null ? undefined : new Date(cmd.stop),
      startId: optionalId(cmd.startid), stopId: optionalId(cmd.stopid), rule: cmd.rule ?? undefined, partner: cmd.request ?? undefined,
      pending: cmd.statuspending, transfer: cmd.statustransfer, done: cmd.statusdone, error: cmd.statuserror, purge: cmd.purge, clean: cmd.clean,
    });
  } catch (err) {
    // An export failure is 400/400 with the reason (§12.5); nothing was purged. The file's error
    // names the file; a database error's text stays in the log.
    if (!(err instanceof ConfigError)) services.log.error({ err: err instanceof Error ? err.message : String(err) }, 'REST v1 /log: transfer history export failed');
    return { code: 400, command, model, detail: `transfer history not exported: ${err instanceof ConfigError ? err.message : 'database error'}` };
  }
  if (cmd.purge) notifyOrder(services.notify, 'purge', id.user);
  const answer = newJsonCommand('LogResponseJsonPacket', {
    ...cmd, jsonClass: 'LogResponseJsonPacket', command: cmd.requestUserPacket, filename: r.file, exported: BigInt(r.exported), purged: BigInt(r.purged),
  } as never);
  return { code: 200, command, model, results: [packetJson(answer)] };
}

/** The file of transfer `specialId` that `user` sent to this server, if that transfer exists. */
function receivedFile(ctx: RestListenerContext, user: string, specialId: bigint): Promise<string | undefined> {
  return fileReceivedFrom(ctx.services.store, ctx.services.config, user, specialId);
}

export async function configAction(ctx: RestListenerContext, id: V1Identity, method: string, cmd: JsonCommand | undefined): Promise<ActionResult> {
  const model = 'Config';
  const command = method === 'PUT' ? 'ImportConfig' : 'ExportConfig';
  if (cmd === undefined) return { code: 400, command, model, detail: 'a body is required' };
  const isExport = cmd.jsonClass === 'ConfigExportJsonPacket' || cmd.jsonClass === 'ConfigExportResponseJsonPacket';
  const isImport = cmd.jsonClass === 'ConfigImportJsonPacket' || cmd.jsonClass === 'ConfigImportResponseJsonPacket';
  if ((method === 'GET' && !isExport) || (method === 'PUT' && !isImport)) return { code: 412, command, model, detail: 'packet does not match the method' };
  if (!hasRole(id.roles, Role.CONFIGADMIN) && !isSelf(ctx, id)) return { code: 401, httpStatus: 401, command, model, detail: 'role CONFIGADMIN required' };
  const { services } = ctx;
  const fctx = { store: services.store, hostId: services.config.hostId, cryptoKey: services.config.identity.cryptoKey, tasks: services.tasks };
  if (cmd.jsonClass === 'ConfigExportJsonPacket' || cmd.jsonClass === 'ConfigExportResponseJsonPacket') {
    const items = new Set<ConfigItem>();
    if (cmd.host) items.add('hosts');
    if (cmd.rule) items.add('rules');
    if (cmd.business) items.add('business');
    if (cmd.alias) items.add('aliases');
    if (cmd.roles) items.add('roles');
    const files = await exportConfigV1(fctx, services.config.directories.arch, items);
    notifyOrder(services.notify, 'export', id.user);
    const answer = newJsonCommand('ConfigExportResponseJsonPacket', {
      ...cmd, jsonClass: 'ConfigExportResponseJsonPacket', command: 0, filehost: files.hosts ?? null, filerule: files.rules ?? null,
      filebusiness: files.business ?? null, filealias: files.aliases ?? null, fileroles: files.roles ?? null,
    } as never);
    return Object.keys(files).length === 0
      ? { code: 406, command, model, results: [packetJson(answer)], detail: 'nothing exported' }
      : { code: 200, command, model, results: [packetJson(answer)] };
  }
  if (cmd.jsonClass !== 'ConfigImportJsonPacket' && cmd.jsonClass !== 'ConfigImportResponseJsonPacket') return { code: 412, command, model };
  const req: ImportRequest = {};
  const pairs: Array<[ConfigItem, string | null, bigint, boolean]> = [
    ['hosts', cmd.host, cmd.hostid, cmd.purgehost], ['rules', cmd.rule, cmd.ruleid, cmd.purgerule], ['business', cmd.business, cmd.businessid, cmd.purgebusiness],
    ['aliases', cmd.alias, cmd.aliasid, cmd.purgealias], ['roles', cmd.roles, cmd.rolesid, cmd.purgeroles],
  ];
  for (const [item, path, transferId, purge] of pairs) {
    // A transfer id wins over a path: the file this user sent to this server by that transfer (§12.3).
    const file = transferId !== ILLEGAL_SPECIAL_ID ? await receivedFile(ctx, id.user, transferId) : path;
    if (file) req[item] = { file, purge };
  }
  let imported: ImportResult = {};
  let detail: string | undefined;
  try {
    imported = await importConfig(fctx, req, services.config.directories);
    notifyOrder(services.notify, 'import', id.user);
  } catch (err) {
    if (!(err instanceof ConfigTransferError)) throw err;
    // A file outside the host's directories, or not what the item expects: refused, nothing changed.
    if (err.kind === 'not-allowed' || err.kind === 'invalid' || err.kind === 'refused') return { code: 400, command, model, detail: err.message };
    detail = err.message;
  }
  const flag = (item: ConfigItem) => imported[item]?.imported === true;
  const answer = newJsonCommand('ConfigImportResponseJsonPacket', {
    ...cmd, jsonClass: 'ConfigImportResponseJsonPacket', command: 0,
    purgedhost: imported.hosts?.purged ?? false, purgedrule: imported.rules?.purged ?? false, purgedbusiness: imported.business?.purged ?? false,
    purgedalias: imported.aliases?.purged ?? false, purgedroles: imported.roles?.purged ?? false,
    importedhost: flag('hosts'), importedrule: flag('rules'), importedbusiness: flag('business'), importedalias: flag('aliases'), importedroles: flag('roles'),
  } as never);
  const any = CONFIG_ITEMS.some((item) => imported[item] !== undefined);
  // Rules a purge kept because the history still names them (docs/rest.md): said in the detail.
  const kept = imported.keptRules !== undefined ? `rules kept, still used by transfers: ${imported.keptRules.join(' ')}` : undefined;
  return any ? { code: 200, command, model, results: [packetJson(answer)], ...(kept !== undefined ? { detail: kept } : {}) } : { code: 406, command, model, results: [packetJson(answer)], detail: detail ?? 'nothing imported' };
}

export { jsonClassString };
