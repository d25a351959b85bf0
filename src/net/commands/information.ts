/**
 * Information requests (r66-protocol.md §9.10): existence, MLSx detail, list and MLSx list of files
 * in the rule's send (out) directory, answered with Valid sub-type 18. A transfer check by id
 * (kind -1) needs the transfer store: its owner plugs it in through `requestCheck`.
 */
import path from 'node:path';
import { ErrorCode } from '../../model/error-code.js';
import { ruleAllowsHost, type Rule } from '../../model/rule.js';
import type { TransferKey, TransferRecord } from '../../model/transfer.js';
import { InformationKind, PacketType, runnerXmlLine, type InformationPacket } from '../../protocol/index.js';
import { hasWildcard } from '../../fs/glob.js';
import { listEntries, mlsxLine, statEntry } from '../../fs/listing.js';
import { isInside, resolveInside } from '../../fs/safe-path.js';
import { R66Error } from '../../model/r66-error.js';
import type { RequestContext, RequestHandler } from '../handlers.js';

export interface InformationSource {
  findRule(ruleId: string): Promise<Rule | undefined>;
  /** Absolute instance directory (server.xml `serverhome`). */
  serverHome: string;
  /** Virtual default send directory (`/out`), used when the rule has no send path. */
  defaultOutPath: string;
  /** Runner XML of a transfer (kind -1); `toRequester` is the request's end part `1`. */
  requestCheck?: (ctx: RequestContext, specialId: bigint, callerIsRequester: boolean) => Promise<string>;
}

/** The text the original answers when a request finds nothing or fails (captures: session-b stream 2). */
function requestFailed(kind: number): R66Error {
  return new R66Error(ErrorCode.Internal, `Error while Request ${kind}`);
}

/** Virtual path of an absolute path under the home, as the original lists it (`/out/a.txt`). */
function virtualPath(home: string, abs: string): string {
  return '/' + path.relative(home, abs).split(path.sep).join('/');
}

async function ruleDirectory(source: InformationSource, ctx: RequestContext, ruleId: string): Promise<string> {
  const rule = await source.findRule(ruleId);
  if (rule === undefined) throw new R66Error(ErrorCode.FileNotFound, `Rule not found: ${ruleId}`);
  if (!ruleAllowsHost(rule, ctx.partner.hostId)) throw new R66Error(ErrorCode.BadAuthent, `Rule ${ruleId} is not allowed for ${ctx.partner.hostId}`);
  const virtual = rule.sendPath.length > 0 ? rule.sendPath : source.defaultOutPath;
  return path.join(source.serverHome, virtual);
}

/**
 * A name starting with `/` is a virtual path under the home, as the listings show them
 * (`/out/remote1.txt`) and as transfers take them; an absolute path of the host's own file system
 * that lies in the rule directory is taken as it is. Either way resolveInside has the last word.
 */
function requestedName(home: string, dir: string, name: string): string {
  if (!name.startsWith('/') && !name.startsWith('\\')) return name;
  if (isInside(path.resolve(dir), path.resolve(name))) return name;
  return path.join(home, name);
}

async function answer(ctx: RequestContext, header: string, middle: string): Promise<void> {
  await ctx.channel.send({ kind: 'valid', header, middle, subType: PacketType.INFORMATION });
}

async function transferCheck(source: InformationSource, ctx: RequestContext, p: InformationPacket): Promise<void> {
  if (source.requestCheck === undefined) throw new R66Error(ErrorCode.Unimplemented, 'Transfer information is not available on this host');
  if (!/^-?\d{1,19}$/.test(p.ruleOrId.trim())) throw new R66Error(ErrorCode.FileNotFound, `Transfer id is not a number: ${p.ruleOrId}`);
  const xml = await source.requestCheck(ctx, BigInt(p.ruleOrId.trim()), p.filename === '1');
  await answer(ctx, xml, '');
}

/**
 * `requestCheck` over this host's transfer records (r66-protocol.md §9.10): end part `1` looks for
 * the transfer the caller requested from us, `0` for the one we requested from the caller; the
 * owner is this host (`hostId`). Unknown -> Error `f`.
 */
export function transferCheckFrom(hostId: string, findTransfer: (key: TransferKey) => Promise<TransferRecord | undefined>): NonNullable<InformationSource['requestCheck']> {
  return async (ctx, specialId, callerIsRequester) => {
    const peer = ctx.partner.hostId;
    const key: TransferKey = callerIsRequester
      ? { specialId, requester: peer, requested: ctx.ownHostId, ownerReq: hostId }
      : { specialId, requester: ctx.ownHostId, requested: peer, ownerReq: hostId };
    const record = await findTransfer(key);
    if (record === undefined) throw new R66Error(ErrorCode.FileNotFound, `Transfer not found: ${specialId} (${key.requester} -> ${key.requested})`);
    return runnerXmlLine(record);
  };
}

export function informationHandler(source: InformationSource): RequestHandler<'information'> {
  return async (ctx, p) => {
    if (p.request === InformationKind.REQUEST_CHECK) return transferCheck(source, ctx, p);
    if (p.request < InformationKind.ASKEXIST || p.request > InformationKind.ASKMLSLIST) throw requestFailed(p.request);
    const dir = await ruleDirectory(source, ctx, p.ruleOrId);
    // A name outside the rule's directory is refused with FileNotAllowed (resolveInside's error).
    const target = await resolveInside(dir, requestedName(source.serverHome, dir, p.filename));
    switch (p.request) {
      case InformationKind.ASKEXIST: {
        const found = hasWildcard(path.basename(target)) ? (await listEntries(target)).length > 0 : (await statEntry(target)) !== undefined;
        return answer(ctx, String(found), '1');
      }
      case InformationKind.ASKMLSDETAIL: {
        // `getinfo -file '*' -detail`: the details of every match (the original's stat of the
        // literal name failed with "Error while Request 1"); none is a plain FileNotFound.
        if (hasWildcard(path.basename(target))) {
          const entries = await listEntries(target);
          if (entries.length === 0) throw new R66Error(ErrorCode.FileNotFound, `No file matches ${p.filename} in the rule's directory`);
          return answer(ctx, entries.map((e) => `${mlsxLine(e)}\n`).join(''), String(entries.length));
        }
        const entry = await statEntry(target);
        if (entry === undefined) throw requestFailed(p.request);
        return answer(ctx, mlsxLine(entry), '1');
      }
      default: {
        const entries = await listEntries(target);
        if (entries.length === 0) throw requestFailed(p.request);
        const lines = entries.map((e) => (p.request === InformationKind.ASKLIST ? virtualPath(source.serverHome, e.path) : mlsxLine(e)));
        return answer(ctx, lines.map((l) => `${l}\n`).join(''), String(entries.length));
      }
    }
  };
}
