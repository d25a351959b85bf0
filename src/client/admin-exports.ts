/**
 * Export orders sent to a server (r66-protocol.md §9.11, history.md §4.1, §5.2): the transfer
 * history (legacy Valid 16/17 or JSON LogJsonPacket) and the configuration (JSON
 * ConfigExportJsonPacket, legacy Valid 11 towards partners without JSON). The answer's code tells
 * success (`O`...) from failure; a failure is an R66Error carrying that code.
 */
import { ErrorCode, parseErrorCode, SUCCESS_ANSWER_CHARS } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import { unexpected } from '../net/commands/unexpected.js';
import type { AuthenticatedPartner } from '../net/partner.js';
import type { ConnectionPool } from '../net/pool.js';
import { newJsonCommand, PacketType, type JsonCommandPacket, type Packet } from '../protocol/index.js';
import { formatRunnerTimestamp } from '../store/index.js';

/** Sends the request (built once the partner is known: its JSON support) and reads the answer. */
async function exchange(pool: ConnectionPool, partnerId: string, request: Packet | ((partner: AuthenticatedPartner) => Packet), timeoutMs: number): Promise<Packet> {
  const { channel, partner } = await pool.openChannel(partnerId);
  try {
    await channel.send(typeof request === 'function' ? request(partner) : request);
    return await channel.receive(timeoutMs, 'the answer to the export order');
  } finally {
    channel.close();
  }
}

/** The answer's code; throws when it is not a success code. */
function checkCode(char: string, text: string): void {
  if (SUCCESS_ANSWER_CHARS.has(char)) return;
  const code = parseErrorCode(char);
  throw new R66Error(code, text.length > 0 ? text : `the server answered ${code.name}`);
}

export interface HistoryExportOrder {
  purge: boolean;
  start?: Date;
  stop?: Date;
  /** Extended filters: any of them (or `json`) sends the JSON form (history.md §4.1). */
  extended?: {
    clean: boolean;
    startId?: string;
    stopId?: string;
    rule?: string;
    request?: string;
    pending: boolean;
    transfer: boolean;
    done: boolean;
    error: boolean;
  };
}

export interface HistoryExportAnswer {
  /** The file written on the server (its own path). */
  file: string;
  purged: number;
  /** Known only from the JSON answer. */
  exported?: number;
}

/** Sends the history export order; resolves with the server's file and counts. */
export async function exportHistory(pool: ConnectionPool, partnerId: string, order: HistoryExportOrder, timeoutMs = 30_000): Promise<HistoryExportAnswer> {
  const subType = order.purge ? PacketType.LOGPURGE : PacketType.LOG;
  const ext = order.extended;
  if (ext === undefined) {
    const answer = await exchange(pool, partnerId, {
      kind: 'valid', subType,
      header: order.start ? formatRunnerTimestamp(order.start) : '',
      middle: order.stop ? formatRunnerTimestamp(order.stop) : '',
    }, timeoutMs);
    if (answer.kind !== 'valid' || answer.subType !== PacketType.REQUESTUSER) throw unexpected(answer, 'the answer to the export order');
    checkCode(answer.middle, answer.header);
    // "<file> <purged>": the file name may hold spaces, the count is the last word.
    const cut = answer.header.lastIndexOf(' ');
    const count = cut < 0 ? NaN : Number(answer.header.slice(cut + 1));
    return Number.isInteger(count) ? { file: answer.header.slice(0, cut), purged: count } : { file: answer.header, purged: 0 };
  }
  const command = newJsonCommand('LogJsonPacket', {
    requestUserPacket: subType, purge: order.purge, clean: ext.clean,
    statuspending: ext.pending, statustransfer: ext.transfer, statusdone: ext.done, statuserror: ext.error,
    rule: ext.rule ?? null, request: ext.request ?? null, start: order.start?.getTime() ?? null, stop: order.stop?.getTime() ?? null,
    startid: ext.startId ?? null, stopid: ext.stopId ?? null,
  });
  const answer = await exchange(pool, partnerId, { kind: 'jsonCommand', command, result: '', subType }, timeoutMs);
  const json = jsonAnswer(answer);
  checkCode(json.result, '');
  const res = json.command;
  if (res === null || res.jsonClass !== 'LogResponseJsonPacket') throw new R66Error(ErrorCode.Internal, 'the server answered without a LogResponseJsonPacket');
  return { file: res.filename ?? '', purged: Number(res.purged), exported: Number(res.exported) };
}

function jsonAnswer(answer: Packet): JsonCommandPacket {
  if (answer.kind !== 'jsonCommand' || answer.subType !== PacketType.REQUESTUSER) throw unexpected(answer, 'the answer to the export order');
  return answer;
}

export interface ConfigExportOrder {
  hosts: boolean;
  rules: boolean;
  business: boolean;
  aliases: boolean;
  roles: boolean;
}

export interface ConfigExportAnswer {
  /** Path of each file on the server; '' = written, but the legacy answer gives no path; null = not written or not asked. */
  hosts: string | null;
  rules: string | null;
  business: string | null;
  aliases: string | null;
  roles: string | null;
  /** The partner does not take JSON orders: the legacy order was sent (hosts and rules only). */
  legacy: boolean;
}

/**
 * Sends the configuration export order: the JSON form (history.md §5.2), or towards a partner
 * that does not use JSON (version before 2.4.17, r66-protocol.md §4) the legacy
 * `Valid("true|false", "true|false", 11)` for hosts and rules, whose answer names no file.
 */
export async function exportConfiguration(pool: ConnectionPool, partnerId: string, order: ConfigExportOrder, timeoutMs = 30_000): Promise<ConfigExportAnswer> {
  const command = newJsonCommand('ConfigExportJsonPacket', {
    requestUserPacket: PacketType.CONFEXPORT, host: order.hosts, rule: order.rules, business: order.business, alias: order.aliases, roles: order.roles,
  });
  let legacy = false;
  const answer = await exchange(pool, partnerId, (partner): Packet => {
    if (partner.capabilities.usesJson) return { kind: 'jsonCommand', command, result: '', subType: PacketType.CONFEXPORT };
    legacy = true;
    return { kind: 'valid', header: String(order.hosts), middle: String(order.rules), subType: PacketType.CONFEXPORT };
  }, timeoutMs);
  const nothing = 'the server could not write any of the asked files';
  if (legacy) {
    if (answer.kind !== 'valid' || answer.subType !== PacketType.REQUESTUSER) throw unexpected(answer, 'the answer to the export order');
    checkCode(answer.middle, answer.middle === ErrorCode.TransferError.char ? nothing : '');
    return { hosts: order.hosts ? '' : null, rules: order.rules ? '' : null, business: null, aliases: null, roles: null, legacy };
  }
  const json = jsonAnswer(answer);
  checkCode(json.result, json.result === ErrorCode.TransferError.char ? nothing : '');
  const res = json.command;
  if (res === null || res.jsonClass !== 'ConfigExportResponseJsonPacket') throw new R66Error(ErrorCode.Internal, 'the server answered without a ConfigExportResponseJsonPacket');
  return { hosts: res.filehost, rules: res.filerule, business: res.filebusiness, aliases: res.filealias, roles: res.fileroles, legacy };
}
