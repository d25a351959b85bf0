/**
 * The administrative orders of the original's Java tools other than exports (r66-protocol.md
 * §9.11, §9.12, packets §5.1, §13.5, §16.2):
 *
 * - bandwidth (ChangeBandwidthLimits), role LIMIT: legacy `Valid("<wg> <rg>", "<ws> <rs>", 19)`
 *   answered `Valid("Bandwidth changed", "O", 15)`, or the get form (`-1`, or an incomplete pair)
 *   answered `Valid("<wg> <rg> <ws> <rs>", "O", 15)`; `JsonCommand(BandwidthJsonPacket, 19)`
 *   answered with the same object holding the values now in force, `O`, 15;
 * - configuration import (ConfigImport), role CONFIGADMIN: legacy `Valid("1|0 <hostfile>",
 *   "1|0 <rulefile>", 12)` answered `Valid("Host:OK|KO Rule:OK|KO", "O"|"T", 15)`;
 *   `JsonCommand(ConfigImportJsonPacket, 12)` answered `ConfigImportResponseJsonPacket`, `O`|`T`, 15;
 * - block / unblock of new requests (ServerShutdown -block/-unblock), role SYSTEM and the admin
 *   key: `BlockRequest` answered `Valid("Block new request"|"Unblock new request", "O", 15)`;
 *   `JsonCommand(ShutdownOrBlockJsonPacket, 24)` answered with the same object, that comment, `O`,
 *   15, or, with `shutdownOrBlock`, the shutdown order (the Shutdown packet's row, shutdown-order.ts).
 *
 * The work belongs to the server (the live limits, the import, the block state of the engine) and
 * is plugged in through AdminOrderSource: the same services REST and the web pages use.
 */
import { hasRole, Role } from '../../config/index.js';
import { ErrorCode, type ErrorCodeInfo } from '../../model/error-code.js';
import { ILLEGAL_SPECIAL_ID } from '../../model/transfer.js';
import {
  decodeValidCommand, newJsonCommand, PacketType, ProtocolError, wireKeyMatches,
  type BlockRequestPacket, type JsonCommandPacket, type ShutdownPacket, type ValidPacket,
} from '../../protocol/index.js';
import { R66Error } from '../../model/r66-error.js';
import type { RequestContext, RequestHandler } from '../handlers.js';
import type { AuthenticatedPartner } from '../partner.js';
import { checkRole } from './admin-exports.js';

/** The four live limits in bytes per second (0 = unlimited). */
export interface LiveFourLimits {
  writeGlobal: number;
  readGlobal: number;
  writeSession: number;
  readSession: number;
}

export type ImportItem = 'hosts' | 'rules' | 'business' | 'aliases' | 'roles';

/** One item to import: a file on this server, or a transfer id (ILLEGAL_SPECIAL_ID when none). */
export interface ImportItemAsk {
  file: string | null;
  transferId: bigint;
  purge: boolean;
}

export interface AdminOrderSource {
  /** This server's own host ids: a caller using one of them may give any order. */
  ownIds: readonly string[];
  roleOf(partner: AuthenticatedPartner): number;
  /** Clear administrator password (server.xml `serverpasswd`): the block order's key is derived from it. */
  adminPassword: string;
  bandwidth: {
    current(): LiveFourLimits;
    /** Applies an order (negative = keep) and returns the limits now in force. */
    change(order: { writeGlobal: bigint; readGlobal: bigint; writeSession: bigint; readSession: bigint }, partnerId: string): LiveFourLimits;
  };
  /** Imports the asked items; true for each one imported. */
  importConfig(items: Partial<Record<ImportItem, ImportItemAsk>>, partnerId: string): Promise<Partial<Record<ImportItem, boolean>>>;
  /** Blocks (true) or unblocks new transfer requests. */
  block(block: boolean, partnerId: string): void;
}

export const ADMIN_ORDER_SUBTYPES: ReadonlySet<number> = new Set([PacketType.CONFIMPORT, PacketType.BANDWIDTH]);
export const ADMIN_ORDER_JSON_SUBTYPES: ReadonlySet<number> = new Set([PacketType.CONFIMPORT, PacketType.BANDWIDTH, PacketType.BLOCKREQUEST]);

const BLOCK_TEXT = 'Block new request';
const UNBLOCK_TEXT = 'Unblock new request';

/** The block order's checks (§9.12): SYSTEM (or this host) and the admin key; else `Invalid Block comand` (sic), R. */
function checkAdminKey(source: AdminOrderSource, ctx: RequestContext, key: Uint8Array | null): void {
  const allowed = source.ownIds.includes(ctx.partner.hostId) || hasRole(source.roleOf(ctx.partner), Role.SYSTEM);
  if (!allowed || key === null || !wireKeyMatches(key, source.adminPassword)) throw new R66Error(ErrorCode.RemoteError, 'Invalid Block comand');
}

/** A malformed legacy order: the protocol's code (IncorrectCommand), as an Error answer. */
function decodeValid(p: ValidPacket): ReturnType<typeof decodeValidCommand> {
  try {
    return decodeValidCommand(p);
  } catch (err) {
    if (err instanceof ProtocolError) throw new R66Error(err.errorCode, err.message);
    throw err;
  }
}

type BandwidthAsk = Parameters<AdminOrderSource['bandwidth']['change']>[0];

/**
 * The legacy bandwidth order: `"<wg> <rg>"`, `"<ws> <rs>"`; an incomplete form (`-1`, one value,
 * empty) is the get (bandwidth.md §4.1): null. A value that is not a number is an incorrect command.
 */
function legacyBandwidth(p: ValidPacket): BandwidthAsk | null {
  const [g, s] = [p.header, p.middle].map((t) => t.trim().split(/\s+/).filter((x) => x !== '')) as [string[], string[]];
  if (g.length < 2 || s.length < 2) return null;
  const n = (x: string): bigint => {
    if (!/^-?\d{1,19}$/.test(x)) throw new R66Error(ErrorCode.IncorrectCommand, `bandwidth values must be numbers of bytes per second, got ${JSON.stringify(x.slice(0, 40))}`);
    return BigInt(x);
  };
  return { writeGlobal: n(g[0]!), readGlobal: n(g[1]!), writeSession: n(s[0]!), readSession: n(s[1]!) };
}

/** O when every asked item was imported, T when one failed or nothing was asked (the original's codes). */
function importCode(asked: number, result: Partial<Record<ImportItem, boolean>>): ErrorCodeInfo {
  const ok = Object.values(result).filter((v) => v === true).length;
  return asked > 0 && ok === asked ? ErrorCode.CompleteOk : ErrorCode.TransferError;
}

const okKo = (name: string, v: boolean | undefined): string => (v === undefined ? '' : `${name}:${v ? 'OK' : 'KO'}`);

export function adminOrderHandlers(
  source: AdminOrderSource,
  restValid: RequestHandler,
  restJson: RequestHandler,
  /** The Shutdown packet's row (shutdown-order.ts): the JSON order with `shutdownOrBlock` is that order. */
  shutdown: RequestHandler,
): { valid: RequestHandler<'valid'>; jsonCommand: RequestHandler<'jsonCommand'>; blockRequest: RequestHandler<'blockRequest'> } {

  const block = (ctx: RequestContext, blocked: boolean): string => {
    source.block(blocked, ctx.partner.hostId);
    ctx.logger.warn({ partner: ctx.partner.hostId, block: blocked }, blocked ? 'new transfer requests blocked by order' : 'new transfer requests unblocked by order');
    return blocked ? BLOCK_TEXT : UNBLOCK_TEXT;
  };

  const importItems = async (ctx: RequestContext, items: Partial<Record<ImportItem, ImportItemAsk>>) => {
    checkRole(source, ctx, Role.CONFIGADMIN);
    try {
      const result = await source.importConfig(items, ctx.partner.hostId);
      return { result, code: importCode(Object.keys(items).length, result) };
    } catch (err) {
      if (err instanceof R66Error) throw err;
      ctx.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'configuration import failed');
      throw new R66Error(ErrorCode.Internal, 'configuration import failed: internal error (see the server log)');
    }
  };

  const valid: RequestHandler<'valid'> = async (ctx, p: ValidPacket) => {
    if (p.subType === PacketType.BANDWIDTH) {
      checkRole(source, ctx, Role.LIMIT);
      const ask = legacyBandwidth(p);
      let header = 'Bandwidth changed';
      if (ask === null) {
        const l = source.bandwidth.current();
        header = `${l.writeGlobal} ${l.readGlobal} ${l.writeSession} ${l.readSession}`;
      } else {
        source.bandwidth.change(ask, ctx.partner.hostId);
      }
      await ctx.channel.send({ kind: 'valid', header, middle: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
      return;
    }
    const cmd = decodeValid(p);
    if (cmd.cmd === 'configImport') {
      // An empty file part asks nothing for that item (packets §5.1).
      const items: Partial<Record<ImportItem, ImportItemAsk>> = {};
      if (cmd.hostFile !== '') items.hosts = { file: cmd.hostFile, transferId: ILLEGAL_SPECIAL_ID, purge: cmd.purgeHosts };
      if (cmd.ruleFile !== '') items.rules = { file: cmd.ruleFile, transferId: ILLEGAL_SPECIAL_ID, purge: cmd.purgeRules };
      const { result, code } = await importItems(ctx, items);
      await ctx.channel.send({ kind: 'valid', header: `${okKo('Host', result.hosts)} ${okKo('Rule', result.rules)}`, middle: code.char, subType: PacketType.REQUESTUSER });
      return;
    }
    return restValid(ctx, p);
  };

  const jsonCommand: RequestHandler<'jsonCommand'> = async (ctx, p: JsonCommandPacket) => {
    const cmd = p.command;
    if (cmd !== null && p.subType === PacketType.BANDWIDTH && cmd.jsonClass === 'BandwidthJsonPacket') {
      checkRole(source, ctx, Role.LIMIT);
      const now = cmd.setter
        ? source.bandwidth.change({ writeGlobal: cmd.writeglobal, readGlobal: cmd.readglobal, writeSession: cmd.writesession, readSession: cmd.readsession }, ctx.partner.hostId)
        : source.bandwidth.current();
      const answer = {
        ...cmd, requestUserPacket: p.subType,
        writeglobal: BigInt(now.writeGlobal), readglobal: BigInt(now.readGlobal), writesession: BigInt(now.writeSession), readsession: BigInt(now.readSession),
      };
      await ctx.channel.send({ kind: 'jsonCommand', command: answer, result: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
      return;
    }
    if (cmd !== null && p.subType === PacketType.CONFIMPORT && (cmd.jsonClass === 'ConfigImportJsonPacket' || cmd.jsonClass === 'ConfigImportResponseJsonPacket')) {
      const items: Partial<Record<ImportItem, ImportItemAsk>> = {};
      const ask = (item: ImportItem, file: string | null, transferId: bigint, purge: boolean): void => {
        if ((file !== null && file !== '') || transferId !== ILLEGAL_SPECIAL_ID) items[item] = { file, transferId, purge };
      };
      ask('hosts', cmd.host, cmd.hostid, cmd.purgehost);
      ask('rules', cmd.rule, cmd.ruleid, cmd.purgerule);
      ask('business', cmd.business, cmd.businessid, cmd.purgebusiness);
      ask('aliases', cmd.alias, cmd.aliasid, cmd.purgealias);
      ask('roles', cmd.roles, cmd.rolesid, cmd.purgeroles);
      const { result, code } = await importItems(ctx, items);
      // A failed item changed nothing (its purge was rolled back with it).
      const purged = (item: ImportItem): boolean => result[item] === true && items[item]?.purge === true;
      const answer = newJsonCommand('ConfigImportResponseJsonPacket', {
        comment: cmd.comment, requestUserPacket: p.subType,
        purgehost: cmd.purgehost, purgerule: cmd.purgerule, purgebusiness: cmd.purgebusiness, purgealias: cmd.purgealias, purgeroles: cmd.purgeroles,
        host: cmd.host, rule: cmd.rule, business: cmd.business, alias: cmd.alias, roles: cmd.roles,
        hostid: cmd.hostid, ruleid: cmd.ruleid, businessid: cmd.businessid, aliasid: cmd.aliasid, rolesid: cmd.rolesid,
        // `command` is never set by the original: it stays 0.
        command: 0,
        purgedhost: purged('hosts'), purgedrule: purged('rules'), purgedbusiness: purged('business'), purgedalias: purged('aliases'), purgedroles: purged('roles'),
        importedhost: result.hosts === true, importedrule: result.rules === true, importedbusiness: result.business === true,
        importedalias: result.aliases === true, importedroles: result.roles === true,
      });
      await ctx.channel.send({ kind: 'jsonCommand', command: answer, result: code.char, subType: PacketType.REQUESTUSER });
      return;
    }
    if (cmd !== null && p.subType === PacketType.BLOCKREQUEST && cmd.jsonClass === 'ShutdownOrBlockJsonPacket') {
      if (cmd.shutdownOrBlock) return shutdown(ctx, { kind: 'shutdown', key: cmd.key ?? Buffer.alloc(0), restart: cmd.restartOrBlock } satisfies ShutdownPacket);
      checkAdminKey(source, ctx, cmd.key);
      const comment = block(ctx, cmd.restartOrBlock);
      await ctx.channel.send({ kind: 'jsonCommand', command: { ...cmd, comment, requestUserPacket: p.subType }, result: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
      return;
    }
    return restJson(ctx, p);
  };

  const blockRequest: RequestHandler<'blockRequest'> = async (ctx, p: BlockRequestPacket) => {
    checkAdminKey(source, ctx, p.key);
    const text = block(ctx, p.block);
    await ctx.channel.send({ kind: 'valid', header: text, middle: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
  };

  return { valid, jsonCommand, blockRequest };
}
