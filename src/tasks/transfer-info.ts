/**
 * The JSON map inside transfer information (tasks.md §10, database.md §4.4): every `{...}` group
 * without nested braces is merged into one map, the rest is plain text. Follow ids are signed
 * 64-bit, beyond a double's precision, so big integers are kept as bigint both ways.
 */

export type InfoValue = string | number | bigint | boolean | null | InfoValue[] | { [key: string]: InfoValue };
export type InfoMap = Record<string, InfoValue>;

export interface ParsedInfo {
  text: string;
  map: InfoMap;
}

const GROUP = /\{[^{}]*\}/g;
// Marks a big integer while it travels through JSON as a string (printable: JSON refuses control characters).
const BIG_MARK = '@svc-bigint@';

function reviveBig(value: InfoValue): InfoValue {
  if (typeof value === 'string' && value.startsWith(BIG_MARK)) return BigInt(value.slice(BIG_MARK.length));
  if (Array.isArray(value)) return value.map(reviveBig);
  if (value && typeof value === 'object' && typeof value !== 'bigint') {
    const out: InfoMap = {};
    for (const [k, v] of Object.entries(value)) out[k] = reviveBig(v);
    return out;
  }
  return value;
}

/** Parses one JSON object keeping integers of 16+ digits exact. Returns null when not JSON. */
function parseObject(group: string): InfoMap | null {
  // Quote long integers that follow a ':' or '[' or ',' (never inside strings in practice: these
  // maps hold numbers, booleans and short texts).
  const guarded = group.replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,}\]])/g, (_m, pre: string, num: string) => `${pre}"${BIG_MARK}${num}"`);
  try {
    const value = JSON.parse(guarded) as InfoValue;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    return reviveBig(value) as InfoMap;
  } catch {
    return null;
  }
}

/** Splits information into plain text and the merged JSON map. Groups that are not JSON stay text. */
export function parseTransferInfo(info: string): ParsedInfo {
  const map: InfoMap = {};
  const text = info.replace(GROUP, (group) => {
    const parsed = parseObject(group);
    if (!parsed) return group;
    Object.assign(map, parsed);
    return '';
  });
  return { text: text.replace(/\s+/g, ' ').trim(), map };
}

/** JSON text of a map, writing bigints as plain integers. */
export function stringifyInfoMap(map: InfoMap): string {
  const marked = JSON.stringify(map, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG_MARK}${v}` : v));
  return marked.replace(/"@svc-bigint@(-?\d+)"/g, '$1');
}

/** Information text with its map written last, as the original stores it. */
export function formatTransferInfo(parsed: ParsedInfo): string {
  const json = stringifyInfoMap(parsed.map);
  return parsed.text ? `${parsed.text} ${json}` : json;
}

/** Reads the map of a record's `transferInfo`. */
export function readInfoMap(transferInfo: string): InfoMap {
  return parseTransferInfo(transferInfo).map;
}

/** Sets keys of a record's `transferInfo` map, keeping its text. Returns the new string. */
export function updateInfoMap(transferInfo: string, changes: InfoMap): string {
  const parsed = parseTransferInfo(transferInfo);
  return formatTransferInfo({ text: parsed.text, map: { ...parsed.map, ...changes } });
}

/** A map value as an integer, or undefined. */
export function infoInteger(value: InfoValue | undefined): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return BigInt(value.trim());
  return undefined;
}
