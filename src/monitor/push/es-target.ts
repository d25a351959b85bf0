/**
 * Search-service target of push monitoring (monitoring.md §A.5): Elasticsearch 7.x to 9.x and
 * OpenSearch 1.x to 3.x with one configuration. One `_bulk` request per run, an `index` action per
 * item with `_id` = uniqueId (a record pushed twice is replaced, not duplicated) into the index
 * named by the template.
 *
 * Our own small client on node:http(s), not the official one (decision 0042): the official 9.x
 * client sends `application/vnd.elasticsearch+x-ndjson; compatible-with=9`, which Elasticsearch 8
 * refuses (400), Elasticsearch 7 and OpenSearch too (406), and refuses any answer without
 * `X-Elastic-Product: Elasticsearch` (OpenSearch). Plain `application/x-ndjson` with
 * `Accept: application/json` is what every version accepts for `_bulk`.
 *
 * The service and its version are detected with `GET /` before the first push (again after a
 * failed one: the cluster may have been upgraded) or taken from `<monitoring><searchservice>`.
 *
 * Item errors: a document refused as such (status 400: mapping or parsing) is reported in a WARN
 * and not pushed again (it would be refused at every run and hold back every later record); any
 * other item error (429 rejected, 5xx, 403 block, 404 missing index...) fails the run, and the
 * whole batch is pushed again at the next one.
 */
import { once } from 'node:events';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createGzip } from 'node:zlib';
import type { Logger } from 'pino';
import type { PushMonitorConfig } from '../../config/index.js';
import { indexName, utf8Chunks, type PushItem } from './payload.js';
import { sendRequest, type HttpAnswer } from './request.js';
import { describeService, serviceFromRoot, supportOf, type SearchService } from './search-service.js';
import type { PushBatch, PushTarget, PushTls } from './target.js';

/** A bulk answer for 10,000 items, each with an error, is a few MB; anything longer is not one. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** Refused documents named in the WARN of a run. */
const MAX_NAMED = 5;

export interface SearchTargetOptions {
  hostId: string;
  timeoutMs: number;
  tls: PushTls | undefined;
  /** `<monitoring><searchservice>`; undefined: detected with GET /. */
  service: SearchService | undefined;
  logger: Logger;
}

/** Each `url` entry with the `prefix` path; missing scheme = http, missing host = 127.0.0.1. */
export function esNodes(url: string, prefix: string | undefined): string[] {
  return url.split(',').map((u) => u.trim()).filter((u) => u !== '').map((u) => {
    const withScheme = /^[a-z]+:\/\//i.test(u) ? u : `http://${u.startsWith(':') ? `127.0.0.1${u}` : u}`;
    const node = new URL(withScheme);
    if (node.protocol !== 'http:' && node.protocol !== 'https:') throw new Error(`pushMonitor/url: expected http:// or https:// (got ${node.protocol})`);
    if (prefix !== undefined) node.pathname = `/${[node.pathname, prefix].join('/').split('/').filter(Boolean).join('/')}`;
    return node.toString().replace(/\/$/, '');
  });
}

/** Authorization: `token` (Bearer), else `apiKey`, else `username`/`paswd` (Basic). */
export function esAuthorization(c: Pick<PushMonitorConfig, 'token' | 'apiKey' | 'username' | 'password'>): string | undefined {
  if (c.token !== undefined) return `Bearer ${c.token}`;
  // Elasticsearch wants base64(id:api_key), the `encoded` value of its create API key answer. The
  // raw `id:api_key` (the spec's convention) is encoded here: base64 never holds a ':'.
  if (c.apiKey !== undefined) return `ApiKey ${c.apiKey.includes(':') ? Buffer.from(c.apiKey, 'utf8').toString('base64') : c.apiKey}`;
  if (c.username !== undefined && c.password !== undefined) return `Basic ${Buffer.from(`${c.username}:${c.password}`, 'utf8').toString('base64')}`;
  return undefined;
}

/** Why Elasticsearch and OpenSearch would refuse this index name; undefined when valid. */
export function indexNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return 'empty, "." or ".."';
  if (/^[-_+]/.test(name)) return 'starts with -, _ or +';
  const bad = /[\\/*?"<>| ,#:]/.exec(name);
  if (bad !== null) return `contains "${bad[0]}"`;
  if (Buffer.byteLength(name, 'utf8') > 255) return 'longer than 255 bytes';
  return undefined;
}

/** The reason in an Elasticsearch/OpenSearch error answer (`error.reason`, the cause, or `error` as text). */
export function errorReason(body: string): string {
  try {
    const e = (JSON.parse(body) as { error?: unknown }).error;
    if (typeof e === 'string') return e;
    const err = e as { type?: string; reason?: string; caused_by?: { reason?: string } } | undefined;
    if (err?.reason !== undefined) return `${err.type ?? 'error'}: ${err.reason}${err.caused_by?.reason !== undefined ? ` (${err.caused_by.reason})` : ''}`;
  } catch {
    // not JSON: the text itself, cut
  }
  return body.slice(0, 200);
}

interface ItemError { id: string; status: number; type: string; reason: string }

/** The failed items of a bulk answer. */
function itemErrors(body: string, sent: number): ItemError[] {
  let answer: { errors?: unknown; items?: unknown };
  try {
    answer = JSON.parse(body) as typeof answer;
  } catch {
    throw new Error('the _bulk answer is not JSON');
  }
  if (!Array.isArray(answer.items) || typeof answer.errors !== 'boolean') throw new Error('the _bulk answer has no errors/items');
  if (answer.items.length !== sent) throw new Error(`the _bulk answer has ${answer.items.length} results for ${sent} documents`);
  if (!answer.errors) return [];
  const failed: ItemError[] = [];
  for (const item of answer.items as Array<Record<string, { _id?: string; status?: number; error?: { type?: string; reason?: string } }>>) {
    const r = Object.values(item)[0];
    const status = r?.status ?? 0;
    if (status >= 200 && status < 300) continue;
    failed.push({ id: r?._id ?? '?', status, type: r?.error?.type ?? '?', reason: r?.error?.reason ?? '' });
  }
  return failed;
}

async function gzipped(chunks: readonly Buffer[]): Promise<Buffer[]> {
  // One gzip stream, not one member per chunk: the servers' decoders stop after the first member.
  const gz = createGzip();
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const ended = once(gz, 'end');
  for (const c of chunks) gz.write(c);
  gz.end();
  await ended;
  return out;
}

export class ElasticsearchPushTarget implements PushTarget {
  private readonly nodes: URL[];
  /** The node that answered last: tried first. */
  private current = 0;
  private readonly agents = new Map<string, HttpAgent>();
  private service: SearchService | undefined;
  private announced: string | undefined;

  constructor(private readonly config: PushMonitorConfig, private readonly opts: SearchTargetOptions) {
    this.nodes = esNodes(config.url, config.prefix).map((u) => new URL(u));
    if (this.nodes.length === 0) throw new Error('pushMonitor/url: no Elasticsearch or OpenSearch URL');
    const problem = indexNameProblem(indexName(config.index ?? '', opts.hostId, new Date()));
    if (problem !== undefined) throw new Error(`pushMonitor/index: "${config.index ?? ''}" gives an index name that Elasticsearch and OpenSearch refuse (${problem})`);
    if (opts.service !== undefined) {
      const support = supportOf(opts.service);
      if (support.refused !== undefined) throw new Error(`monitoring/searchservice: ${support.refused}`);
      if (support.untested !== undefined) opts.logger.warn(`push monitoring: ${support.untested}`);
      this.service = opts.service;
    }
  }

  describe(): string {
    const service = this.opts.service !== undefined ? describeService(this.opts.service) : 'Elasticsearch/OpenSearch (version read from GET /)';
    return `push monitoring to ${service} ${this.nodes.map(display).join(', ')} index ${this.config.index ?? ''}`;
  }

  async push(batch: PushBatch): Promise<void> {
    try {
      this.service ??= await this.detect();
      const index = indexName(this.config.index ?? '', this.opts.hostId, batch.to);
      const problem = indexNameProblem(index);
      if (problem !== undefined) throw new Error(`the index name "${index}" is refused by Elasticsearch and OpenSearch (${problem})`);
      await this.bulk(index, batch.items);
    } catch (err) {
      // Read the version again before the next push: the cluster may have been upgraded meanwhile.
      if (this.opts.service === undefined) this.service = undefined;
      throw err;
    }
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** GET /: the product and version; an error when it is not a service we push to. */
  private async detect(): Promise<SearchService> {
    const { answer, node } = await this.call('GET', '', { Accept: 'application/json' });
    const where = `${display(node)}: GET /`;
    if (answer.status === 403) {
      throw new Error(`${where} answered 403 (${errorReason(answer.body)}): reading the version needs the monitor cluster privilege; grant it, or name the service in <monitoring><searchservice> (elasticsearch-8, opensearch-2...)`);
    }
    if (answer.status !== 200) throw new Error(`${where} answered ${answer.status} (${errorReason(answer.body)})`);
    const service = serviceFromRoot(answer.body);
    if (service instanceof Error) throw new Error(`${where}: ${service.message}`);
    const support = supportOf(service);
    if (support.refused !== undefined) throw new Error(`${display(node)}: ${support.refused}`);
    const text = describeService(service);
    if (this.announced !== text) {
      this.announced = text;
      if (support.untested !== undefined) this.opts.logger.warn(`push monitoring: ${support.untested}; pushing with plain JSON`);
      else this.opts.logger.info({ node: display(node), product: service.product, version: service.version }, `push monitoring: ${text}`);
    }
    return service;
  }

  private async bulk(index: string, items: readonly PushItem[]): Promise<void> {
    const action = (item: PushItem): string => `{"index":{"_index":"${index}","_id":${JSON.stringify(item.uniqueId)}}}\n${item.json}\n`;
    // NDJSON: every line, the last one too, ends with \n (the servers refuse a bulk body without it).
    const ndjson = utf8Chunks('', items, action, '');
    const body = this.config.compression ? await gzipped(ndjson) : ndjson;
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/x-ndjson', Accept: 'application/json',
      'Content-Length': body.reduce((n, c) => n + c.length, 0),
      ...(this.config.compression ? { 'Content-Encoding': 'gzip' } : {}),
    };
    const { answer, node } = await this.call('POST', `${encodeURIComponent(index)}/_bulk`, headers, body);
    if (answer.status !== 200) throw new Error(`${display(node)}: POST /${index}/_bulk answered ${answer.status} (${errorReason(answer.body)})`);
    const failed = itemErrors(answer.body, items.length);
    const later = failed.filter((f) => f.status !== 400);
    if (later.length > 0) {
      const f = later[0]!;
      throw new Error(`${later.length} of ${items.length} documents not indexed for now (first: ${f.id} ${f.status} ${f.type}: ${f.reason}); the whole batch is pushed again`);
    }
    if (failed.length > 0) {
      this.opts.logger.warn({ refused: failed.length, documents: items.length, index, first: failed.slice(0, MAX_NAMED) },
        'push monitoring: the search service refused documents (400, mapping or parsing); they are not pushed again, the others were indexed');
    }
  }

  /** One request to the first node that answers, starting with the one that answered last. */
  private async call(method: 'GET' | 'POST', path: string, headers: Record<string, string | number>, body?: Buffer[]): Promise<{ answer: HttpAnswer; node: URL }> {
    const auth = esAuthorization(this.config);
    const all = { ...headers, ...(auth !== undefined ? { Authorization: auth } : {}) };
    const failures: string[] = [];
    for (let i = 0; i < this.nodes.length; i++) {
      const n = (this.current + i) % this.nodes.length;
      const node = this.nodes[n]!;
      const url = new URL(node);
      url.pathname = `${node.pathname.replace(/\/+$/, '')}/${path}`;
      try {
        const answer = await sendRequest(url, { method, agent: this.agentFor(node), headers: all, timeoutMs: this.opts.timeoutMs, ...(body ? { body } : {}), maxAnswerBytes: MAX_ANSWER_BYTES });
        this.current = n;
        return { answer, node };
      } catch (err) {
        failures.push(`${display(node)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    throw new Error(`no answer (${failures.join('; ')})`);
  }

  private agentFor(node: URL): HttpAgent {
    let agent = this.agents.get(node.protocol);
    if (agent === undefined) {
      agent = node.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: 1, ...(this.opts.tls?.options ?? {}) }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
      this.agents.set(node.protocol, agent);
    }
    return agent;
  }
}

/** A node as logged: no user or password from the URL. */
function display(node: URL): string {
  return `${node.protocol}//${node.host}${node.pathname === '/' ? '' : node.pathname}`;
}
