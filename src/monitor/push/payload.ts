/**
 * The push monitoring payload (monitoring.md §A.3): one item per transfer record, keys in the
 * original's order, 64-bit values exact (numbers written as digits, never through a double) or as
 * strings with `transformlongasstring`.
 */
import type { TransferRecord } from '../../model/transfer.js';
import { formatIsoLocal } from '../../model/iso-date.js';
import { transferToJson } from '../../http/v2/converters.js';
import { infoInteger, readInfoMap, stringifyInfoMap, type InfoMap, type InfoValue } from '../../tasks/transfer-info.js';

/** Java's Long.MIN_VALUE: the original's "no follow id". */
const NO_FOLLOW = -9223372036854775808n;

export interface PayloadOptions {
  hostId: string;
  transformLongAsString: boolean;
  intervalIncluded: boolean;
  /** Previous `last` (undefined on the first run) and this run's `now`. */
  from: Date | undefined;
  to: Date;
  /** Name of the interval key: `waarpMonitor` (original) or `svcMonitor`. */
  intervalKey: string;
}

/** `<owner host id>.<requester>.<requested>.<transfer id>`: the consumers' upsert key. */
export function uniqueIdOf(r: TransferRecord): string {
  return `${r.ownerReq}.${r.requester}.${r.requested}.${r.specialId}`;
}

export function pushItem(r: TransferRecord, o: PayloadOptions): InfoMap {
  const { id: _id, ...fields } = transferToJson(r);
  const map = readInfoMap(r.transferInfo);
  const long = (v: bigint): bigint | string => (o.transformLongAsString ? v.toString() : v);
  const item: InfoMap = {
    ...(fields as InfoMap),
    specialId: long(r.specialId),
    followId: long(infoInteger(map.follow) ?? NO_FOLLOW),
    originalSize: long(infoInteger(map.ORIGINALSIZE) ?? -1n),
    uniqueId: uniqueIdOf(r),
    hostId: o.hostId,
  };
  if (o.intervalIncluded) item[o.intervalKey] = { from: o.from === undefined ? '' : formatIsoLocal(o.from), to: formatIsoLocal(o.to), index: o.hostId.toLowerCase() };
  return item;
}

/** `{"results":[...]}`, compact. */
export function pushBody(items: InfoValue[]): string {
  return stringifyInfoMap({ results: items });
}

/** One item as compact JSON (a bulk document line). */
export function itemJson(item: InfoMap): string {
  return stringifyInfoMap(item);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * The index name (§A.5): `%%WAARPHOST%%` (or `%%SVCHOST%%`) = host id, date tokens from `now` in
 * the server's zone with dots, then lower case.
 */
export function indexName(template: string, hostId: string, now: Date): string {
  const y = String(now.getFullYear());
  const ym = `${y}.${pad(now.getMonth() + 1)}`;
  const date = `${ym}.${pad(now.getDate())}`;
  const hour = `${date}.${pad(now.getHours())}`;
  return template
    .replaceAll('%%WAARPHOST%%', hostId).replaceAll('%%SVCHOST%%', hostId)
    .replaceAll('%%DATETIME%%', `${hour}.${pad(now.getMinutes())}`).replaceAll('%%DATEHOUR%%', hour)
    .replaceAll('%%DATE%%', date).replaceAll('%%YEARMONTH%%', ym).replaceAll('%%YEAR%%', y)
    .toLowerCase();
}
