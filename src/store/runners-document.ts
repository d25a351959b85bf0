import { XMLParser } from 'fast-xml-parser';
import { parseErrorCode } from '../model/error-code.js';
import { toUpdatedInfo, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { parseLocalTimestamp } from './codec.js';

// The `runner` element (database.md §10.1): history exports, single-transfer exchange and the
// no-database transfer files. Children are the lower-case column names in column order.

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `yyyy-MM-dd HH:mm:ss.f…` in local time, fraction without trailing zeros but at least one digit. */
export function formatRunnerTimestamp(d: Date): string {
  const fraction = pad(d.getMilliseconds(), 3).replace(/0+$/, '') || '0';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${fraction}`;
}

/** A timestamp element: the text form above, or epoch milliseconds (the original importer's form). */
export function parseRunnerTimestamp(text: string): Date {
  const t = text.trim();
  if (/^-?\d+$/.test(t)) return new Date(Number(t));
  return parseLocalTimestamp(t);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * One `runner` element. The export leaves out `updatedinfo` and `transferinfo`; the no-database
 * files keep them (`withState`) so a restarted client knows each transfer's status.
 */
export function runnerToXml(r: TransferRecord, opts: { withState?: boolean; indent?: string } = {}): string {
  const fields: Array<[string, string]> = [
    ['specialid', r.specialId.toString()], ['globalstep', String(r.globalStep)], ['globallaststep', String(r.globalLastStep)],
    ['step', String(r.step)], ['rank', String(r.rank)], ['blocksz', String(r.blockSize)], ['modetrans', String(r.mode)],
    ['stepstatus', r.stepStatus.char], ['infostatus', r.infoStatus.char], ['retrievemode', String(r.retrieveMode)],
    ['ismoved', String(r.isMoved)], ['starttrans', formatRunnerTimestamp(r.start)], ['stoptrans', formatRunnerTimestamp(r.stop)],
    ['ownerreq', r.ownerReq], ['requester', r.requester], ['requested', r.requested], ['idrule', r.idRule],
    ['filename', r.filename], ['originalname', r.originalName], ['fileinfo', r.fileInfo],
  ];
  if (opts.withState) fields.push(['updatedinfo', String(r.updatedInfo)], ['transferinfo', r.transferInfo]);
  const indent = opts.indent ?? '  ';
  const body = fields.map(([k, v]) => `${indent}  <${k}>${escapeXml(v)}</${k}>`).join('\n');
  return `${indent}<runner>\n${body}\n${indent}</runner>`;
}

/** A `taskrunners` document holding the given runners. */
export function runnersDocument(records: readonly TransferRecord[], opts: { withState?: boolean } = {}): string {
  return `<taskrunners>\n${records.map((r) => runnerToXml(r, { ...opts, indent: '  ' })).join('\n')}\n</taskrunners>\n`;
}

const parser = new XMLParser({ parseTagValue: false, trimValues: false, isArray: (name) => name === 'runner' });

/**
 * Every `taskrunners/runner` (or a lone `runner`) of a document. Missing elements take the values
 * of a new transfer; `updatedinfo`/`transferinfo` when absent give UNKNOWN and `{}` as the
 * original importer does.
 */
export function runnersFromXml(xml: string): TransferRecord[] {
  const doc = parser.parse(xml) as { taskrunners?: { runner?: Record<string, unknown>[] } | string; runner?: Record<string, unknown>[] };
  const list = (typeof doc.taskrunners === 'object' ? doc.taskrunners.runner : undefined) ?? doc.runner ?? [];
  return list.map(fromElement);
}

function fromElement(e: Record<string, unknown>): TransferRecord {
  const text = (k: string): string => (typeof e[k] === 'string' ? (e[k] as string) : e[k] === undefined ? '' : String(e[k]));
  const int = (k: string, dflt: number): number => (/^-?\d+$/.test(text(k).trim()) ? Number(text(k).trim()) : dflt);
  const bool = (k: string): boolean => text(k).trim().toLowerCase() === 'true' || text(k).trim() === '1';
  const id = text('specialid').trim();
  return {
    specialId: /^-?\d+$/.test(id) ? BigInt(id) : -9223372036854775808n,
    globalStep: int('globalstep', 0), globalLastStep: int('globallaststep', 0), step: int('step', -1), rank: int('rank', 0),
    blockSize: int('blocksz', 0), mode: int('modetrans', 0),
    updatedInfo: e.updatedinfo === undefined ? UpdatedInfo.UNKNOWN : toUpdatedInfo(int('updatedinfo', 0)),
    stepStatus: parseErrorCode(text('stepstatus')), infoStatus: parseErrorCode(text('infostatus')),
    retrieveMode: bool('retrievemode'), isMoved: bool('ismoved'),
    start: parseRunnerTimestamp(text('starttrans')), stop: parseRunnerTimestamp(text('stoptrans')),
    ownerReq: text('ownerreq'), requester: text('requester'), requested: text('requested'), idRule: text('idrule'),
    filename: text('filename'), originalName: text('originalname'), fileInfo: text('fileinfo'),
    transferInfo: e.transferinfo === undefined ? '{}' : text('transferinfo'),
  };
}
