/**
 * A test server that answers as Elasticsearch 7.x/8.x/9.x or OpenSearch 1.x/2.x/3.x do for what
 * push monitoring uses (GET /, POST _bulk), and refuses what they refuse. No real Elasticsearch or
 * OpenSearch can be installed on our machines (npm and Debian only, no Java distribution of
 * either), so the header rules the products document are written here, each with where it comes
 * from:
 *
 * - Content-Type is required on a request with a body and must name a format the API takes: for
 *   `_bulk` NDJSON or JSON (Elasticsearch reference, API conventions, "Content-type requirements";
 *   strict checking since 6.0). Otherwise 406 `Content-Type header [x] is not supported` (the
 *   answer quoted in many client issues, e.g. elastic/elasticsearch-js#641).
 * - The versioned types `application/vnd.elasticsearch+json|x-ndjson; compatible-with=N` (REST API
 *   compatibility, Elasticsearch reference 8.x): 8.x accepts N = 7 or 8, 9.x N = 8 or 9, anything
 *   else 400 `media_type_header_exception` caused by `Accept version must be either version 8 or
 *   7, but found 9` (elastic/mcp-server-elasticsearch#171; the 9.x wording "either version 9 or 8"
 *   in open-telemetry/opentelemetry-collector-contrib#40553). When the request has a body, Accept
 *   and Content-Type must both carry the same version (elastic/elasticsearch#80253,
 *   RestCompatibleVersionHelper). 7.x accepts N = 7 only, serving 7.x (elastic/elasticsearch#63071),
 *   from 7.13 (elasticsearch-php docs); another N, or an older 7.x, does not know the type: 406.
 * - OpenSearch knows none of the vnd.elasticsearch types: 406 `Content-Type header [...] is not
 *   supported` (elastic/elasticsearch-php#1347, against Amazon OpenSearch).
 * - `X-Elastic-Product: Elasticsearch` on every answer of Elasticsearch 7.14 and later, never on
 *   OpenSearch's nor before 7.14 (Elasticsearch-Hadoop 7.14.1 notes; the official clients' product
 *   check relies on it).
 * - `GET /` answers name, cluster, `version.number` (and `version.distribution: opensearch` and
 *   the OpenSearch tagline on OpenSearch), and needs the `monitor`, `manage` or `all` cluster
 *   privilege when security is on (Elasticsearch reference, Root API): else 403.
 * - Authentication when security is on: `Authorization: Basic`, `ApiKey base64(id:api_key)` or
 *   `Bearer <token>` (Elasticsearch API reference, Authentication); else 401 security_exception.
 * - `_bulk`: the body must end with a newline (400 illegal_argument_exception "The bulk request
 *   must be terminated by a newline [\n]"); mapping types in action lines are refused from 8.x;
 *   index names must be lowercase (invalid_index_name_exception); the answer is 200 with
 *   `errors` and one result per action, carrying its own `status` and `error` (Bulk API).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface SearchServerOptions {
  product: 'elasticsearch' | 'opensearch';
  /** As GET / reports it: `7.17.25`, `8.15.0`, `2.17.1`... */
  version: string;
  tls?: ServerOptions;
  /** Security on when any of these is given: the accepted credentials. */
  users?: Record<string, string>;
  /** API keys: id -> api_key. */
  apiKeys?: Record<string, string>;
  tokens?: string[];
  /** False: the credentials lack the monitor cluster privilege (GET / answers 403). */
  monitorPrivilege?: boolean;
  /** Listen on this port (a server "upgraded" in place); default: any free one. */
  port?: number;
}

export interface SearchRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as sent (gunzipped when Content-Encoding is gzip). */
  body: string;
  /** The status answered. */
  status: number;
}

export interface SearchServer {
  readonly port: number;
  readonly received: SearchRequest[];
  /** The indexed documents: index -> _id -> source. */
  readonly indices: Map<string, Map<string, Record<string, unknown>>>;
  /** Item errors to answer, by document _id (removed once answered when `once`). */
  readonly failItem: Map<string, { status: number; type: string; reason: string; once?: boolean }>;
  close(): Promise<void>;
}

interface Answer { status: number; body: unknown; headers?: Record<string, string> }

const major = (v: string): number => Number(v.split('.')[0]);

/** `type/subtype; a=b` -> essence and parameters (RFC 9110 media type, lower-cased). */
function mediaType(value: string): { essence: string; params: Record<string, string> } {
  const [essence = '', ...rest] = value.split(';').map((p) => p.trim());
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
  }
  return { essence: essence.toLowerCase(), params };
}

const VND = /^application\/vnd\.elasticsearch\+(json|x-ndjson)$/;
const BULK_TYPES = new Set(['application/json', 'application/x-ndjson']);

const notSupported = (value: string): Answer => ({ status: 406, body: { error: `Content-Type header [${value}] is not supported`, status: 406 } });
const esError = (status: number, type: string, reason: string, causedBy?: { type: string; reason: string }): Answer => ({
  status, body: { error: { root_cause: [{ type, reason }], type, reason, ...(causedBy ? { caused_by: causedBy } : {}) }, status },
});

/** The media type rules of the product for one request; undefined when it passes. */
export function mediaTypeRefusal(o: Pick<SearchServerOptions, 'product' | 'version'>, headers: IncomingHttpHeaders, hasBody: boolean): Answer | undefined {
  const contentType = headers['content-type'];
  const accept = headers.accept;
  if (hasBody && contentType === undefined) return { status: 406, body: { error: 'Content-Type header is missing', status: 406 } };
  const ct = contentType === undefined ? undefined : mediaType(contentType);
  const ac = accept === undefined ? undefined : mediaType(accept.split(',')[0] ?? '');
  if (o.product === 'opensearch') {
    if (ct !== undefined && !BULK_TYPES.has(ct.essence)) return notSupported(contentType!);
    return undefined;
  }
  const m = major(o.version);
  const versionOf = (t: { essence: string; params: Record<string, string> } | undefined): number | undefined =>
    t !== undefined && VND.test(t.essence) ? Number(t.params['compatible-with']) : undefined;
  const ctVersion = versionOf(ct);
  const acVersion = versionOf(ac);
  if (m < 8) {
    // 7.x: the versioned type only with compatible-with=7, and only from 7.13 (elasticsearch-php
    // docs, "Send the API compatibility layer"); plain json/x-ndjson otherwise.
    const knowsVnd = Number(o.version.split('.')[1]) >= 13;
    if (ct !== undefined && (ctVersion !== undefined ? !knowsVnd || ctVersion !== 7 : !BULK_TYPES.has(ct.essence))) return notSupported(contentType!);
    return undefined;
  }
  const allowed = [m, m - 1];
  const check = (name: 'Accept' | 'Content-Type', v: number | undefined, raw: string | undefined): Answer | undefined => {
    if (v === undefined || allowed.includes(v)) return undefined;
    return esError(400, 'media_type_header_exception', 'Invalid media-type value on headers [Accept, Content-Type]',
      { type: 'status_exception', reason: `${name} version must be either version ${m} or ${m - 1}, but found ${v}. ${name}=${raw}` });
  };
  const refused = check('Accept', acVersion, accept) ?? check('Content-Type', ctVersion, contentType);
  if (refused !== undefined) return refused;
  if (hasBody && (ctVersion !== undefined || acVersion !== undefined) && ctVersion !== acVersion) {
    return esError(400, 'media_type_header_exception', 'Invalid media-type value on headers [Accept, Content-Type]', {
      type: 'status_exception',
      reason: `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version and the compatible versions must match. Accept=${accept}, Content-Type=${contentType}`,
    });
  }
  if (ct !== undefined && ctVersion === undefined && !BULK_TYPES.has(ct.essence)) return notSupported(contentType!);
  return undefined;
}

function authRefusal(o: SearchServerOptions, authorization: string | undefined): Answer | undefined {
  const secured = o.users !== undefined || o.apiKeys !== undefined || o.tokens !== undefined;
  if (!secured) return undefined;
  const [scheme = '', value = ''] = (authorization ?? '').split(' ', 2);
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [left, right] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  const ok = (scheme === 'Basic' && colon > 0 && o.users?.[left] === right)
    || (scheme === 'ApiKey' && colon > 0 && o.apiKeys?.[left] === right)
    || (scheme === 'Bearer' && (o.tokens ?? []).includes(value));
  if (ok) return undefined;
  const a = esError(401, 'security_exception', authorization === undefined ? 'missing authentication credentials for REST request' : 'unable to authenticate with provided credentials');
  return { ...a, headers: { 'WWW-Authenticate': 'Basic realm="security" charset="UTF-8"' } };
}

function root(o: SearchServerOptions): Answer {
  if (o.monitorPrivilege === false) return esError(403, 'security_exception', 'action [cluster:monitor/main] is unauthorized for user [svc_writer]');
  const os = o.product === 'opensearch';
  return {
    status: 200,
    body: {
      name: 'node-1', cluster_name: 'test-cluster', cluster_uuid: 'Ex1uuidEx1uuidEx1uuid',
      version: { ...(os ? { distribution: 'opensearch' } : { build_flavor: 'default' }), number: o.version, build_type: 'tar', build_snapshot: false, lucene_version: '9.11.1' },
      tagline: os ? 'The OpenSearch Project: https://opensearch.org/' : 'You Know, for Search',
    },
  };
}

function bulk(o: SearchServerOptions, server: SearchServer, pathIndex: string | undefined, body: string): Answer {
  if (!body.endsWith('\n')) return esError(400, 'illegal_argument_exception', 'The bulk request must be terminated by a newline [\\n]');
  const lines = body.split('\n').slice(0, -1);
  const items: unknown[] = [];
  const typesRemoved = o.product === 'elasticsearch' ? major(o.version) >= 8 : major(o.version) >= 2;
  // Renamed document_parsing_exception during the 8.x series; the client does not depend on the name.
  const parsingError = o.product === 'elasticsearch' && major(o.version) >= 8 ? 'document_parsing_exception' : 'mapper_parsing_exception';
  for (let i = 0; i < lines.length; i += 2) {
    const action = JSON.parse(lines[i]!) as { index?: { _index?: string; _id?: string; _type?: string } };
    const meta = action.index;
    if (meta === undefined) return esError(400, 'illegal_argument_exception', `Malformed action/metadata line [${i + 1}], expected index`);
    if (meta._type !== undefined && typesRemoved) return esError(400, 'illegal_argument_exception', `Action/metadata line [${i + 1}] contains an unknown parameter [_type]`);
    const index = meta._index ?? pathIndex ?? '';
    const id = meta._id ?? `auto-${i}`;
    const injected = server.failItem.get(id);
    let doc: Record<string, unknown> | undefined;
    try {
      doc = JSON.parse(lines[i + 1] ?? '') as Record<string, unknown>;
    } catch {
      doc = undefined;
    }
    const error = injected ?? (index !== index.toLowerCase() ? { status: 400, type: 'invalid_index_name_exception', reason: `Invalid index name [${index}], must be lowercase` }
      : doc === undefined ? { status: 400, type: parsingError, reason: `[1:1] failed to parse` } : undefined);
    if (injected?.once === true) server.failItem.delete(id);
    if (error !== undefined) {
      items.push({ index: { _index: index, _id: id, status: error.status, error: { type: error.type, reason: error.reason } } });
      continue;
    }
    const docs = server.indices.get(index) ?? new Map<string, Record<string, unknown>>();
    server.indices.set(index, docs);
    const existed = docs.has(id);
    docs.set(id, doc!);
    items.push({ index: { _index: index, _id: id, _version: existed ? 2 : 1, result: existed ? 'updated' : 'created', status: existed ? 200 : 201 } });
  }
  return { status: 200, body: { took: 3, errors: items.some((it) => (it as { index: { status: number } }).index.status >= 300), items } };
}

export async function startSearchServer(o: SearchServerOptions): Promise<SearchServer> {
  const received: SearchRequest[] = [];
  const search: SearchServer = {
    port: 0, received, indices: new Map(), failItem: new Map(),
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
  const productHeader = o.product === 'elasticsearch' && (major(o.version) > 7 || (major(o.version) === 7 && Number(o.version.split('.')[1]) >= 14));
  const answer = (req: IncomingMessage, raw: Buffer, body: string): Answer => {
    const url = new URL(req.url ?? '/', 'http://x');
    const refused = authRefusal(o, req.headers.authorization) ?? mediaTypeRefusal(o, req.headers, raw.length > 0);
    if (refused !== undefined) return refused;
    if (req.method === 'GET' && url.pathname === '/') return root(o);
    const m = /^\/(?:([^/_][^/]*)\/)?_bulk$/.exec(url.pathname);
    if (req.method === 'POST' && m !== null) return bulk(o, search, m[1] === undefined ? undefined : decodeURIComponent(m[1]), body);
    return esError(400, 'illegal_argument_exception', `no handler found for uri [${url.pathname}] and method [${req.method}]`);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      const a = answer(req, raw, body);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, status: a.status });
      res.writeHead(a.status, { 'Content-Type': 'application/json; charset=UTF-8', ...(productHeader ? { 'X-Elastic-Product': 'Elasticsearch' } : {}), ...a.headers });
      res.end(JSON.stringify(a.body));
    });
  };
  const server: Server = o.tls ? createHttps(o.tls, handle) : createHttp(handle);
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', resolve));
  (search as { port: number }).port = (server.address() as AddressInfo).port;
  return search;
}

/**
 * A CA and a server certificate for 127.0.0.1 signed by it, as Elasticsearch 8 sets up its HTTP
 * layer on first start (its own CA, `http_ca.crt`, that clients must trust).
 */
export function selfSignedCa(dir: string): { ca: string; key: Buffer; cert: Buffer } {
  const f = (n: string): string => path.join(dir, n);
  const run = (args: string[]): void => { execFileSync('openssl', args, { stdio: 'pipe' }); };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=Elasticsearch security auto-configuration HTTP CA']);
  run(['req', ...ec, '-keyout', f('http.key'), '-out', f('http.csr'), '-subj', '/CN=node-1']);
  // openssl x509 -req has no -addext: the SAN goes in through an extension file.
  writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  run(['x509', '-req', '-in', f('http.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('http.crt'), '-days', '2', '-extfile', f('san.ext')]);
  return { ca: f('ca.crt'), key: readFileSync(f('http.key')), cert: readFileSync(f('http.crt')) };
}
