/**
 * Export orders a partner (or a client sharing this server's identity) sends after authentication
 * (r66-protocol.md §9.11, history.md §4.1, §5.2):
 *
 * - transfer history: legacy `Valid(start, stop, 16|17)` answered `Valid("<file> <purged>", "O", 15)`,
 *   or `JsonCommand(LogJsonPacket, 16|17)` answered `JsonCommand(LogResponseJsonPacket, "O", 15)`;
 * - configuration: legacy `Valid("true|false", "true|false", 11)` answered
 *   `Valid("<hosts> <rules>", "O"|"T", 15)`, or `JsonCommand(ConfigExportJsonPacket, 11)` answered
 *   `JsonCommand(ConfigExportResponseJsonPacket, "O"|"T", 15)`.
 *
 * The work (database, files) belongs to the server and is plugged in through AdminExportSource, so
 * this layer knows only the wire forms and the permission rule. Other sub-types go to the handler
 * registered before (chain), as the transfer engine does for its orders.
 */
import { hasRole, missingRoleMessage, Role } from '../../config/index.js';
import { ErrorCode } from '../../model/error-code.js';
import { newJsonCommand, PacketType, type JsonCommandOf, type JsonCommandPacket, type ValidPacket } from '../../protocol/index.js';
import { R66Error } from '../../model/r66-error.js';
import type { RequestContext, RequestHandler } from '../handlers.js';
import type { AuthenticatedPartner } from '../partner.js';

/** A history export order, decoded from either wire form. */
export interface HistoryOrder {
  /** `basic`: legacy Valid (database.md §10.2 purge rule); `extended`: JSON (§10.3). */
  form: 'basic' | 'extended';
  purge: boolean;
  clean: boolean;
  start?: Date;
  stop?: Date;
  startId?: bigint;
  stopId?: bigint;
  rule?: string;
  /** Requester or requested host id. */
  partner?: string;
  pending: boolean;
  transfer: boolean;
  done: boolean;
  error: boolean;
}

export interface HistoryResult {
  file: string;
  exported: number;
  purged: number;
}

export type ConfigExportItem = 'hosts' | 'rules' | 'business' | 'aliases' | 'roles';

export interface AdminExportSource {
  /** Effective role bits of an authenticated partner (config.md §3.10: roles, admin flag). */
  roleOf(partner: AuthenticatedPartner): number;
  /** This server's own host ids (plain and TLS): a caller using one of them is always allowed. */
  ownIds: readonly string[];
  exportHistory(order: HistoryOrder): Promise<HistoryResult>;
  /** Paths of the files written, by item (absent: not asked or nothing to write). */
  exportConfig(items: ReadonlySet<ConfigExportItem>): Promise<Partial<Record<ConfigExportItem, string>>>;
  /** Warning notification of the original ("Purge Log Order received"...): logged here. */
  notify?(message: string, partnerId: string): void;
}

const HISTORY_SUBTYPES: ReadonlySet<number> = new Set([PacketType.LOG, PacketType.LOGPURGE]);
export const EXPORT_SUBTYPES: ReadonlySet<number> = new Set([PacketType.LOG, PacketType.LOGPURGE, PacketType.CONFEXPORT]);

/** `yyyy-mm-dd hh:mm:ss[.f…]` in local time (the legacy form's JDBC text); empty or invalid: none. */
export function parseLegacyTimestamp(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms);
}

/** The role check of the admin orders: this host's own ids, or every bit of `role` (packets §17). */
export function checkRole(source: Pick<AdminExportSource, 'ownIds' | 'roleOf'>, ctx: RequestContext, role: number): void {
  const caller = ctx.partner.hostId;
  if (source.ownIds.includes(caller) || hasRole(source.roleOf(ctx.partner), role)) return;
  throw new R66Error(ErrorCode.BadAuthent, missingRoleMessage(caller, role));
}

/** A failure of the server-side work becomes the Error answer, without internal details. */
async function work<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof R66Error) throw err;
    throw new R66Error(ErrorCode.Internal, `${what} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const optionalId = (text: string | null): bigint | undefined => (text !== null && /^-?\d{1,19}$/.test(text.trim()) ? BigInt(text.trim()) : undefined);
const optionalDate = (ms: number | null): Date | undefined => (ms === null ? undefined : new Date(ms));

function orderFromJson(cmd: JsonCommandOf<'LogJsonPacket'> | JsonCommandOf<'LogResponseJsonPacket'>, subType: number): HistoryOrder {
  return {
    form: 'extended', purge: subType === PacketType.LOGPURGE || cmd.purge, clean: cmd.clean,
    start: optionalDate(cmd.start), stop: optionalDate(cmd.stop), startId: optionalId(cmd.startid), stopId: optionalId(cmd.stopid),
    rule: cmd.rule ?? undefined, partner: cmd.request ?? undefined,
    pending: cmd.statuspending, transfer: cmd.statustransfer, done: cmd.statusdone, error: cmd.statuserror,
  };
}

function itemsOf(flags: { hosts: boolean; rules: boolean; business?: boolean; aliases?: boolean; roles?: boolean }): Set<ConfigExportItem> {
  return new Set((Object.keys(flags) as ConfigExportItem[]).filter((k) => flags[k]));
}

export function adminExportHandlers(
  source: AdminExportSource,
  previousValid: RequestHandler | undefined,
  previousJson: RequestHandler | undefined,
): { valid: RequestHandler<'valid'>; jsonCommand: RequestHandler<'jsonCommand'> } {
  const history = async (ctx: RequestContext, order: HistoryOrder): Promise<HistoryResult> => {
    checkRole(source, ctx, Role.LOGCONTROL);
    if (order.purge) source.notify?.('Purge Log Order received', ctx.partner.hostId);
    return work('history export', () => source.exportHistory(order));
  };
  const config = async (ctx: RequestContext, items: ReadonlySet<ConfigExportItem>) => {
    checkRole(source, ctx, Role.CONFIGADMIN);
    source.notify?.('Export Configuration Order received', ctx.partner.hostId);
    const files = await work('configuration export', () => source.exportConfig(items));
    // The original answers T (TransferError) when no file at all could be written.
    return { files, code: Object.keys(files).length > 0 ? ErrorCode.CompleteOk : ErrorCode.TransferError };
  };

  const valid: RequestHandler<'valid'> = async (ctx, p: ValidPacket) => {
    if (!EXPORT_SUBTYPES.has(p.subType)) {
      if (previousValid) return previousValid(ctx, p);
      throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: Valid ${p.subType}`);
    }
    if (HISTORY_SUBTYPES.has(p.subType)) {
      const order: HistoryOrder = {
        form: 'basic', purge: p.subType === PacketType.LOGPURGE, clean: false, start: parseLegacyTimestamp(p.header), stop: parseLegacyTimestamp(p.middle),
        pending: false, transfer: false, done: false, error: false,
      };
      const r = await history(ctx, order);
      await ctx.channel.send({ kind: 'valid', header: `${r.file} ${r.purged}`, middle: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
      return;
    }
    const hosts = p.header.trim() === 'true';
    const rules = p.middle.trim() === 'true';
    const { code } = await config(ctx, itemsOf({ hosts, rules }));
    // Legacy answer: the request's flags echoed (packets §5.1), the code in the middle.
    await ctx.channel.send({ kind: 'valid', header: `${p.header} ${p.middle}`, middle: code.char, subType: PacketType.REQUESTUSER });
  };

  const jsonCommand: RequestHandler<'jsonCommand'> = async (ctx, p: JsonCommandPacket) => {
    const cmd = p.command;
    if (cmd !== null && HISTORY_SUBTYPES.has(p.subType) && (cmd.jsonClass === 'LogJsonPacket' || cmd.jsonClass === 'LogResponseJsonPacket')) {
      const r = await history(ctx, orderFromJson(cmd, p.subType));
      const answer = newJsonCommand('LogResponseJsonPacket', {
        comment: cmd.comment, requestUserPacket: p.subType, purge: cmd.purge, clean: cmd.clean, statuspending: cmd.statuspending,
        statustransfer: cmd.statustransfer, statusdone: cmd.statusdone, statuserror: cmd.statuserror, rule: cmd.rule, request: cmd.request,
        start: cmd.start, stop: cmd.stop, startid: cmd.startid, stopid: cmd.stopid,
        command: p.subType, filename: r.file, exported: BigInt(r.exported), purged: BigInt(r.purged),
      });
      await ctx.channel.send({ kind: 'jsonCommand', command: answer, result: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
      return;
    }
    if (cmd !== null && p.subType === PacketType.CONFEXPORT && (cmd.jsonClass === 'ConfigExportJsonPacket' || cmd.jsonClass === 'ConfigExportResponseJsonPacket')) {
      const { files, code } = await config(ctx, itemsOf({ hosts: cmd.host, rules: cmd.rule, business: cmd.business, aliases: cmd.alias, roles: cmd.roles }));
      const answer = newJsonCommand('ConfigExportResponseJsonPacket', {
        comment: cmd.comment, requestUserPacket: p.subType, host: cmd.host, rule: cmd.rule, business: cmd.business, alias: cmd.alias, roles: cmd.roles,
        // `command` is never set by the original: it stays 0 (history.md §5.2).
        command: 0, filehost: files.hosts ?? null, filerule: files.rules ?? null, filebusiness: files.business ?? null,
        filealias: files.aliases ?? null, fileroles: files.roles ?? null,
      });
      await ctx.channel.send({ kind: 'jsonCommand', command: answer, result: code.char, subType: PacketType.REQUESTUSER });
      return;
    }
    if (previousJson) return previousJson(ctx, p);
    throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: JsonCommand ${p.subType}`);
  };
  return { valid, jsonCommand };
}
