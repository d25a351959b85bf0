/**
 * The push monitoring payload (monitoring.md §A.3): one item per transfer record, keys in the
 * original's order, 64-bit values exact (numbers written as digits, never through a double) or as
 * strings with `transformlongasstring`.
 */
import { GLOBAL_STEPS, TRANSFER_STATUS, type TransferRecord } from '../../model/transfer.js';
import { formatIsoLocal } from '../../model/iso-date.js';
import { infoInteger, readInfoMap } from '../../tasks/transfer-info.js';

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

/** A pushed item: its upsert key and its compact JSON text. */
export interface PushItem {
  uniqueId: string;
  json: string;
}

const str = JSON.stringify as (s: string) => string;

/**
 * One record as the JSON text of its item, written directly in the original's key order: the v2
 * transfer keys without `id` (converters.ts transferToJson), then `specialId`, `followId`,
 * `originalSize`, `uniqueId`, `hostId` and, when asked, the interval. Written as text rather
 * than built as an object and stringified: the exporter serialises every finished transfer, and
 * the object route (spread, replacer for bigints, regex over the body) cost several times more.
 * test/monitor/push-payload.test.ts checks it against the object route.
 */
export function pushItem(r: TransferRecord, o: PayloadOptions): PushItem {
  const info = r.transferInfo;
  // The map is parsed only when it may hold one of the two keys read (most records: ORIGINALSIZE).
  const map = info.includes('"follow"') || info.includes('"ORIGINALSIZE"') ? readInfoMap(info) : undefined;
  const long = o.transformLongAsString ? (v: bigint): string => `"${v}"` : (v: bigint): string => `${v}`;
  const uniqueId = uniqueIdOf(r);
  let json = `{"globalStep":"${GLOBAL_STEPS[r.globalStep] ?? 'NOTASK'}","globalLastStep":"${GLOBAL_STEPS[r.globalLastStep] ?? 'NOTASK'}"`
    + `,"step":${JSON.stringify(r.step)},"rank":${JSON.stringify(r.rank)},"status":"${TRANSFER_STATUS[r.updatedInfo] ?? 'UNKNOWN'}"`
    + `,"stepStatus":${str(r.stepStatus.name)},"errorCode":${r.infoStatus.char.charCodeAt(0)},"errorMessage":${str(r.infoStatus.meaning)}`
    + `,"originalFilename":${str(r.originalName)},"filename":${str(r.filename)},"ruleName":${str(r.idRule)},"blockSize":${JSON.stringify(r.blockSize)}`
    + `,"fileInfo":${str(r.fileInfo)},"transferInfo":${str(info)},"start":"${formatIsoLocal(r.start)}","stop":"${formatIsoLocal(r.stop)}"`
    + `,"requested":${str(r.requested)},"requester":${str(r.requester)},"retrieve":${r.retrieveMode}`
    + `,"specialId":${long(r.specialId)},"followId":${long(infoInteger(map?.follow) ?? NO_FOLLOW)},"originalSize":${long(infoInteger(map?.ORIGINALSIZE) ?? -1n)}`
    + `,"uniqueId":${str(uniqueId)},"hostId":${str(o.hostId)}`;
  if (o.intervalIncluded) {
    json += `,${str(o.intervalKey)}:{"from":"${o.from === undefined ? '' : formatIsoLocal(o.from)}","to":"${formatIsoLocal(o.to)}","index":${str(o.hostId.toLowerCase())}}`;
  }
  return { uniqueId, json: `${json}}` };
}

/** About how many characters of items go in one chunk of a push body (see pushBodyChunks). */
const BODY_CHUNK_CHARS = 32 * 1024;

/**
 * `{"results":[...]}`, compact, as UTF-8 chunks of about 32 KiB to write one after the other.
 * One run pushes every transfer of its window (~1.6 KB each, 1-2 MB a second on a busy host, up
 * to 16 MB for a batch of 10,000 after an outage): as one string and then one Buffer of it, the
 * body would be held twice, in large objects that only a full collection frees. Chunks are
 * small and short-lived. (In the bench this did not measurably lower the peak RSS that push
 * adds to a host: docs/performance-log.md, sixteenth session.)
 */
export function pushBodyChunks(items: readonly PushItem[]): Buffer[] {
  return utf8Chunks('{"results":[', items, (item, i) => (i === 0 ? item.json : `,${item.json}`), ']}');
}

/**
 * `open`, the text of each item, `close`, as UTF-8 chunks of about 32 KiB (see pushBodyChunks):
 * the one place a push body is cut, for the REST JSON and the search service's NDJSON alike.
 */
export function utf8Chunks(open: string, items: readonly PushItem[], text: (item: PushItem, i: number) => string, close: string): Buffer[] {
  const chunks: Buffer[] = [];
  let parts: string[] = [open];
  let chars = 0;
  items.forEach((item, i) => {
    const piece = text(item, i);
    parts.push(piece);
    chars += piece.length;
    if (chars >= BODY_CHUNK_CHARS) {
      chunks.push(Buffer.from(parts.join(''), 'utf8'));
      parts = [];
      chars = 0;
    }
  });
  parts.push(close);
  const tail = parts.join('');
  if (tail !== '' || chunks.length === 0) chunks.push(Buffer.from(tail, 'utf8'));
  return chunks;
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
