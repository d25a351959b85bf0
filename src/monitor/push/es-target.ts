/**
 * Elasticsearch target of push monitoring (monitoring.md §A.5) on the official client: one
 * `_bulk` request per run, an `index` action per item with `_id` = uniqueId (so a record pushed
 * twice is replaced, not duplicated) into the index named by the template. Accepted only when the
 * bulk answer reports no item error; otherwise the whole batch is pushed again at the next run.
 */
import { Client } from '@elastic/elasticsearch';

type ClientOptions = NonNullable<ConstructorParameters<typeof Client>[0]>;
import type { PushMonitorConfig } from '../../config/index.js';
import { indexName } from './payload.js';
import type { PushBatch, PushTarget, PushTls } from './target.js';

/** Each `url` entry with the `prefix` path; missing scheme = http, missing host = 127.0.0.1. */
export function esNodes(url: string, prefix: string | undefined): string[] {
  return url.split(',').map((u) => u.trim()).filter((u) => u !== '').map((u) => {
    const withScheme = /^[a-z]+:\/\//i.test(u) ? u : `http://${u.startsWith(':') ? `127.0.0.1${u}` : u}`;
    const node = new URL(withScheme);
    if (prefix !== undefined) node.pathname = `/${[node.pathname, prefix].join('/').split('/').filter(Boolean).join('/')}`;
    return node.toString().replace(/\/$/, '');
  });
}

function authOf(c: PushMonitorConfig): ClientOptions['auth'] {
  if (c.token !== undefined) return { bearer: c.token };
  if (c.apiKey !== undefined) return { apiKey: c.apiKey };
  if (c.username !== undefined && c.password !== undefined) return { username: c.username, password: c.password };
  return undefined;
}

export class ElasticsearchPushTarget implements PushTarget {
  private readonly client: Client;
  private readonly nodes: string[];

  constructor(private readonly config: PushMonitorConfig, private readonly hostId: string, timeoutMs: number, tls: PushTls | undefined) {
    this.nodes = esNodes(config.url, config.prefix);
    if (this.nodes.length === 0) throw new Error('pushMonitor/url: no Elasticsearch URL');
    const auth = authOf(config);
    this.client = new Client({
      nodes: this.nodes, compression: config.compression, requestTimeout: timeoutMs,
      // The exporter's next run is the retry (§A.2); the client must not resend on its own.
      maxRetries: 0,
      ...(auth !== undefined ? { auth } : {}),
      ...(tls !== undefined && this.nodes.some((n) => n.startsWith('https:')) ? { tls: tls.options } : {}),
    });
  }

  describe(): string {
    return `push monitoring to Elasticsearch ${this.nodes.join(', ')} index ${this.config.index ?? ''}`;
  }

  async push(batch: PushBatch): Promise<void> {
    const index = indexName(this.config.index ?? '', this.hostId, batch.to);
    // Pre-serialised lines: the client sends strings as they are, so 64-bit ids stay exact.
    const operations = batch.items.flatMap((item) => [JSON.stringify({ index: { _index: index, _id: item.uniqueId } }), item.json]);
    const answer = await this.client.bulk({ index, operations });
    if (answer.errors) {
      const failed = answer.items.map((i) => i.index).filter((a) => a?.error !== undefined && a.error !== null);
      const first = failed[0]?.error;
      throw new Error(`Elasticsearch refused ${failed.length} of ${batch.items.length} documents (first: ${first?.type ?? '?'}: ${first?.reason ?? ''})`);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
