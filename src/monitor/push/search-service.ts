/**
 * Which search service push monitoring talks to: Elasticsearch or OpenSearch, and its version.
 * Detected from `GET /` (the root/info API: `version.number`, and `version.distribution` =
 * `opensearch` on OpenSearch), or configured with `<monitoring><searchservice>` when the
 * credentials may not call `GET /` (Elasticsearch requires the `monitor` cluster privilege for it).
 *
 * The bulk requests themselves are the same for every supported version (plain
 * `application/x-ndjson`, `_index`/`_id` only): the version decides whether we push at all
 * (Elasticsearch 6 and older need a mapping type in every action: refused with a clear error), and
 * is logged. No product check: an answer without `X-Elastic-Product` (OpenSearch, Elasticsearch
 * before 7.14, a proxy that drops headers) is accepted.
 */
export type SearchProduct = 'elasticsearch' | 'opensearch';

export interface SearchService {
  product: SearchProduct;
  /** As the service reports it (`8.15.0`) or as configured (`8`). */
  version: string;
  major: number;
  /** `detected` (GET /) or `configured` (<searchservice>). */
  source: 'detected' | 'configured';
}

/** Majors tested against their documented header rules (test/monitor/push-search-server.ts). */
export const TESTED_MAJORS: Record<SearchProduct, readonly [number, number]> = { elasticsearch: [7, 9], opensearch: [1, 3] };

const NAMES: Record<SearchProduct, string> = { elasticsearch: 'Elasticsearch', opensearch: 'OpenSearch' };

export function describeService(s: SearchService): string {
  return `${NAMES[s.product]} ${s.version}`;
}

/** `<searchservice>`: `auto` (undefined) or `elasticsearch-8`, `opensearch-2`, `elasticsearch 8.15`... */
export function parseSearchService(text: string): SearchService | undefined | Error {
  const v = text.trim().toLowerCase();
  if (v === 'auto' || v === '') return undefined;
  const m = /^(elasticsearch|opensearch)[-\s]?(\d+)((?:\.\d+)*)$/.exec(v);
  if (m === null) return new Error(`expected auto, elasticsearch-<major> or opensearch-<major> (got "${text}")`);
  return { product: m[1] as SearchProduct, version: `${m[2]}${m[3] ?? ''}`, major: Number(m[2]), source: 'configured' };
}

/**
 * The service from its `GET /` answer; an Error naming what is wrong when it is not one at all.
 */
export function serviceFromRoot(body: string): SearchService | Error {
  let root: unknown;
  try {
    root = JSON.parse(body);
  } catch {
    return new Error('GET / did not answer JSON: not Elasticsearch or OpenSearch');
  }
  const version = (root as { version?: { number?: unknown; distribution?: unknown } } | null)?.version;
  const number = typeof version?.number === 'string' ? version.number : undefined;
  const major = number === undefined ? NaN : Number(/^(\d+)\./.exec(number)?.[1]);
  if (number === undefined || !Number.isInteger(major)) return new Error('GET / answered without version.number: not Elasticsearch or OpenSearch');
  const product: SearchProduct = version?.distribution === 'opensearch' ? 'opensearch' : 'elasticsearch';
  return { product, version: number, major, source: 'detected' };
}

/**
 * Undefined when we push to this service; otherwise why not. A major above the tested ones is
 * pushed to (plain JSON and `_bulk` are stable), with `untested` for a warning.
 */
export function supportOf(s: SearchService): { refused?: string; untested?: string } {
  const [low, high] = TESTED_MAJORS[s.product];
  // OpenSearch with compatibility.override_main_response_version reports 7.10.2.
  if (s.product === 'opensearch' && s.version.startsWith('7.10.')) return {};
  if (s.major < low) {
    return { refused: `${describeService(s)} is not supported (${NAMES[s.product]} ${low}.x or later${s.product === 'elasticsearch' ? '; 6.x and older need mapping types' : ''})` };
  }
  if (s.major > high) return { untested: `${describeService(s)} is newer than the versions tested (${NAMES[s.product]} ${low}.x to ${high}.x)` };
  return {};
}
