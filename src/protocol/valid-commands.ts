import { ErrorCode, parseErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { PacketType, TEST_COUNTER_MAX } from './constants.js';
import { ProtocolError } from './errors.js';
import type { TestPacket } from './packets/test-packet.js';
import type { ValidPacket } from './packets/valid.js';

/**
 * Typed view of the Valid sub-commands (packets §5.1): what the header and middle strings mean for
 * each sub-type, both ways. The Valid packet itself stays two strings and a byte (packets/valid.ts).
 */

/** Header of the restart/stop/cancel commands. */
export const REQUEST_ON_TRANSFER = 'Request on Transfer';
/** Header of the shutdown notification. */
export const SHUTDOWN_FORCED = 'Shutdown forced';

/** A transfer as the admin commands name it: `<requested> <requester> <specialId>`. */
export interface TransferKey {
  requested: string;
  requester: string;
  specialId: bigint;
}

export type ValidCommand =
  | ({ cmd: 'restart'; restartTime: string | null } & TransferKey)
  | { cmd: 'change'; reason: string; filename: string; size: bigint; fileInformation: string | null }
  | { cmd: 'shutdownNotice'; rank: number | null }
  | ({ cmd: 'stop' | 'cancel' } & TransferKey)
  | { cmd: 'configExport'; hosts: boolean; rules: boolean }
  | { cmd: 'configImport'; purgeHosts: boolean; hostFile: string; purgeRules: boolean; ruleFile: string }
  | { cmd: 'testEnd'; text: string }
  | { cmd: 'answer'; text: string; code: ErrorCodeInfo }
  | { cmd: 'log' | 'logPurge'; start: string; stop: string }
  | { cmd: 'information'; result: string; count: string }
  | { cmd: 'bandwidth'; global: { write: bigint; read: bigint } | null; session: { write: bigint; read: bigint } | null }
  | { cmd: 'other'; subType: number; header: string; middle: string };

/** A malformed admin command: Java answers `n` IncorrectCommand. */
function incorrect(why: string): ProtocolError {
  return new ProtocolError(why, ErrorCode.IncorrectCommand);
}

function long(text: string, what: string): bigint {
  if (!/^-?\d{1,19}$/.test(text)) throw incorrect(`${what} is not a number: ${JSON.stringify(text.slice(0, 40))}`);
  return BigInt(text);
}

/** `<requested> <requester> <specialId>[ <extra>]`; fewer than 3 fields -> IncorrectCommand. */
export function parseTransferKey(middle: string): TransferKey & { extra: string | null } {
  const f = middle.trim().split(/\s+/);
  if (f.length < 3) throw incorrect(`expected "<requested> <requester> <specialId>", got ${JSON.stringify(middle.slice(0, 80))}`);
  return { requested: f[0] as string, requester: f[1] as string, specialId: long(f[2] as string, 'specialId'), extra: f[3] ?? null };
}

/** The middle of restart/stop/cancel, also the header of their answers. */
export function formatTransferKey(k: TransferKey): string {
  return `${k.requested} ${k.requester} ${k.specialId}`;
}

function pair(text: string): { write: bigint; read: bigint } | null {
  const t = text.trim();
  if (t === '-1' || t === '') return null;
  const f = t.split(/\s+/);
  if (f.length < 2) throw incorrect(`bandwidth values must be "<write> <read>" or -1, got ${JSON.stringify(t.slice(0, 40))}`);
  return { write: long(f[0] as string, 'bandwidth'), read: long(f[1] as string, 'bandwidth') };
}

function parseChange(reason: string, middle: string): ValidCommand {
  // `;` always, whatever SEPARATOR. A second field that is not a number belongs to the file name.
  const f = middle.split(';');
  const k = f.findIndex((x, i) => i > 0 && /^-?\d{1,19}$/.test(x));
  if (k < 0) return { cmd: 'change', reason, filename: middle, size: -1n, fileInformation: null };
  const rest = f.slice(k + 1);
  return { cmd: 'change', reason, filename: f.slice(0, k).join(';'), size: BigInt(f[k] as string), fileInformation: rest.length ? rest.join(';') : null };
}

function importPart(text: string): { purge: boolean; file: string } {
  const t = text.trim();
  const sp = t.indexOf(' ');
  if (sp < 0) return { purge: t === '1', file: '' };
  return { purge: t.slice(0, sp) === '1', file: t.slice(sp + 1) };
}

/**
 * Interprets a Valid packet by its sub-type. Throws a ProtocolError carrying IncorrectCommand (`n`)
 * when a command's fields are malformed; unknown sub-types come back as `other` (Java ignores them).
 */
export function decodeValidCommand(v: ValidPacket): ValidCommand {
  const { header, middle } = v;
  switch (v.subType) {
    case PacketType.VALID: {
      const k = parseTransferKey(middle);
      return { cmd: 'restart', requested: k.requested, requester: k.requester, specialId: k.specialId, restartTime: k.extra };
    }
    case PacketType.REQUEST: return parseChange(header, middle);
    case PacketType.SHUTDOWN: {
      const t = middle.trim();
      return { cmd: 'shutdownNotice', rank: /^-?\d{1,10}$/.test(t) ? Number(t) : null };
    }
    case PacketType.STOP:
    case PacketType.CANCEL: {
      const k = parseTransferKey(middle);
      return { cmd: v.subType === PacketType.STOP ? 'stop' : 'cancel', requested: k.requested, requester: k.requester, specialId: k.specialId };
    }
    case PacketType.CONFEXPORT: return { cmd: 'configExport', hosts: header.trim() === 'true', rules: middle.trim() === 'true' };
    case PacketType.CONFIMPORT: {
      const h = importPart(header);
      const r = importPart(middle);
      return { cmd: 'configImport', purgeHosts: h.purge, hostFile: h.file, purgeRules: r.purge, ruleFile: r.file };
    }
    case PacketType.TEST: return { cmd: 'testEnd', text: header };
    case PacketType.REQUESTUSER: return { cmd: 'answer', text: header, code: parseErrorCode(middle) };
    case PacketType.LOG:
    case PacketType.LOGPURGE: return { cmd: v.subType === PacketType.LOG ? 'log' : 'logPurge', start: header, stop: middle };
    case PacketType.INFORMATION: return { cmd: 'information', result: header, count: middle };
    case PacketType.BANDWIDTH: return { cmd: 'bandwidth', global: pair(header), session: pair(middle) };
    default: return { cmd: 'other', subType: v.subType, header, middle };
  }
}

function valid(header: string, middle: string, subType: number): ValidPacket {
  return { kind: 'valid', header, middle, subType };
}

/** Builds the Valid packet of a command. */
export function encodeValidCommand(c: ValidCommand): ValidPacket {
  switch (c.cmd) {
    case 'restart': return valid(REQUEST_ON_TRANSFER, formatTransferKey(c) + (c.restartTime ? ` ${c.restartTime}` : ''), PacketType.VALID);
    case 'change': return valid(c.reason, `${c.filename};${c.size}${c.fileInformation === null ? '' : `;${c.fileInformation}`}`, PacketType.REQUEST);
    case 'shutdownNotice': return valid(SHUTDOWN_FORCED, c.rank === null ? '' : String(c.rank), PacketType.SHUTDOWN);
    case 'stop': return valid(REQUEST_ON_TRANSFER, formatTransferKey(c), PacketType.STOP);
    case 'cancel': return valid(REQUEST_ON_TRANSFER, formatTransferKey(c), PacketType.CANCEL);
    case 'configExport': return valid(String(c.hosts), String(c.rules), PacketType.CONFEXPORT);
    case 'configImport':
      return valid(`${c.purgeHosts ? 1 : 0} ${c.hostFile}`, `${c.purgeRules ? 1 : 0} ${c.ruleFile}`, PacketType.CONFIMPORT);
    case 'testEnd': return valid(c.text, '', PacketType.TEST);
    case 'answer': return valid(c.text, c.code.char, PacketType.REQUESTUSER);
    case 'log': return valid(c.start, c.stop, PacketType.LOG);
    case 'logPurge': return valid(c.start, c.stop, PacketType.LOGPURGE);
    case 'information': return valid(c.result, c.count, PacketType.INFORMATION);
    case 'bandwidth': {
      const f = (p: { write: bigint; read: bigint } | null): string => (p === null ? '-1' : `${p.write} ${p.read}`);
      return valid(f(c.global), f(c.session), PacketType.BANDWIDTH);
    }
    case 'other': return valid(c.header, c.middle, c.subType);
  }
}

/**
 * The answer to a received Test (r66-protocol.md §9.11): counter+1 while it stays <= 100, else the
 * end of the test, `Valid("TestPacket: <header>:<middle>:<counter+1>", "", 13)`.
 */
export function answerTest(t: TestPacket): TestPacket | ValidPacket {
  const next = t.counter + 1;
  if (next <= TEST_COUNTER_MAX) return { ...t, counter: next };
  return encodeValidCommand({ cmd: 'testEnd', text: `TestPacket: ${t.header}:${t.middle}:${next}` });
}
