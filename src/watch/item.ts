/**
 * One file known to a watcher (filewatcher.md §3.2) and the JSON of the state file (§4.1), which
 * is the original's so an existing state file is read and ours is readable by the original.
 *
 * 64-bit values (`specialId`, and `lastTime`/`timeUsed` whose "none" is -2^63) do not fit a JS
 * number: they are read from the raw text and written as raw digits.
 */

export type FileStatus = 'START' | 'CHANGING' | 'VALID' | 'DONE' | 'RESTART';
const STATUSES: ReadonlySet<string> = new Set(['START', 'CHANGING', 'VALID', 'DONE', 'RESTART']);

/** The original's "none" for a long (Long.MIN_VALUE). */
export const LONG_NONE = '-9223372036854775808';

/**
 * A transfer order of one file to one `to` host, written to the state file BEFORE the order is
 * given (docs/decisions, exactly once): after a crash the order is reconciled, never given twice.
 * Unknown to the original, which ignores the property.
 */
export interface Order {
  to: string;
  id: bigint;
  /** The order is known to have succeeded (the row submitted, or the transfer ended well). */
  done: boolean;
}

export interface FileItem {
  /** Absolute path, `\` replaced by `/` (also the map key). */
  file: string;
  size: number;
  /** MD5 of the content, Base64 (the original's Jackson byte[]), or null. */
  hash: string | null;
  /** Modification time (epoch ms), null = none. */
  lastTime: number | null;
  timeUsed: number | null;
  used: boolean;
  status: FileStatus;
  /** Transfer id of the last successful send (one `to` host only), null = none. */
  specialId: bigint | null;
  /** Orders in progress (svc addition, see Order). */
  orders: Order[] | null;
}

export function newItem(file: string): FileItem {
  return { file, size: 0, hash: null, lastTime: null, timeUsed: null, used: false, status: 'START', specialId: null, orders: null };
}

const BIG_KEYS = /("(?:specialId|lastTime|timeUsed|id)"\s*:\s*)(-?\d+)/g;

/** JSON.parse that keeps the 64-bit keys of items as strings (quoted before parsing). */
export function parseItemsJson(text: string): unknown {
  return JSON.parse(text.replace(BIG_KEYS, '$1"$2"'));
}

function longOf(v: unknown): bigint | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`expected a number, got ${JSON.stringify(v)}`);
  const n = BigInt(typeof v === 'number' ? Math.trunc(v) : v.trim());
  return n === BigInt(LONG_NONE) ? null : n;
}

function timeOf(v: unknown): number | null {
  const n = longOf(v);
  return n === null ? null : Number(n);
}

/** One item of the state file or of a report; throws an Error naming what is wrong. */
export function itemFromJson(key: string, v: unknown): FileItem {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`entry ${key}: expected an object`);
  const o = v as Record<string, unknown>;
  const status = typeof o.status === 'string' && STATUSES.has(o.status) ? (o.status as FileStatus) : 'START';
  const orders = Array.isArray(o.svcOrders)
    ? o.svcOrders.map((x) => {
      const r = x as Record<string, unknown>;
      const id = longOf(r.id);
      if (typeof r.to !== 'string' || id === null) throw new Error(`entry ${key}: a bad svcOrders element`);
      return { to: r.to, id, done: r.done === true };
    })
    : null;
  return {
    file: typeof o.file === 'string' ? o.file : key,
    size: typeof o.size === 'number' ? o.size : Number(o.size ?? 0),
    hash: typeof o.hash === 'string' ? o.hash : null,
    lastTime: timeOf(o.lastTime),
    timeUsed: timeOf(o.timeUsed),
    used: o.used === true,
    status,
    specialId: longOf(o.specialId),
    orders: orders !== null && orders.length > 0 ? orders : null,
  };
}

/** Items of a parsed JSON object (state file or report `fileItems`). */
export function itemsFromJson(v: unknown, what: string): Map<string, FileItem> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what}: expected a JSON object of files`);
  const out = new Map<string, FileItem>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out.set(k, itemFromJson(k, x));
  return out;
}

const long = (n: bigint | number | null): string => (n === null ? LONG_NONE : String(n));

/** One item as the original writes it (key order as §4.1), plus our orders when there are any. */
export function itemToJson(i: FileItem): string {
  const orders = i.orders === null ? '' : `,"svcOrders":[${i.orders.map((o) => `{"to":${JSON.stringify(o.to)},"id":${o.id},"done":${o.done}}`).join(',')}]`;
  return `{"file":${JSON.stringify(i.file)},"size":${i.size},"hash":${i.hash === null ? 'null' : JSON.stringify(i.hash)},`
    + `"lastTime":${long(i.lastTime)},"timeUsed":${long(i.timeUsed)},"used":${i.used},"status":"${i.status}","specialId":${long(i.specialId)}${orders}}`;
}

export function itemsToJson(items: Iterable<FileItem>): string {
  const parts: string[] = [];
  for (const i of items) parts.push(`${JSON.stringify(i.file)}:${itemToJson(i)}`);
  return `{${parts.join(',\n')}}`;
}

/** True when two items differ in any field the reports carry (§5.1 delta). */
export function sameItem(a: FileItem, b: FileItem): boolean {
  return a.size === b.size && a.hash === b.hash && a.lastTime === b.lastTime && a.timeUsed === b.timeUsed && a.used === b.used
    && a.status === b.status && a.specialId === b.specialId;
}
