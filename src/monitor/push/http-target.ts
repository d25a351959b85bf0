/**
 * REST target of push monitoring (monitoring.md §A.4): one POST of `{"results":[...]}` per run to
 * `url` + `endpoint`, accepted on 200 or 201 only. Keep-alive per `keepconnection` (one agent,
 * one socket, reopened when the receiver closed it). Differences from the original, on purpose:
 * origin-form request target (`POST /log`, not the absolute URI), duplicate slashes between url and
 * endpoint removed, Content-Length in bytes, and the remote certificate verified (system roots
 * plus the host's trust store) unless `<monitoring><pushinsecure>` says otherwise.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { PushMonitorConfig } from '../../config/index.js';
import { formatIsoLocal } from '../../model/iso-date.js';
import { pushBodyChunks } from './payload.js';
import { sendRequest } from './request.js';
import type { PushBatch, PushTarget, PushTls } from './target.js';

/** `url` + `endpoint` with exactly one `/` between them. */
export function restUrl(url: string, endpoint: string | undefined): URL {
  const base = new URL(url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`pushMonitor/url: expected http:// or https:// (got ${base.protocol})`);
  const path = `${base.pathname.replace(/\/+$/, '')}/${(endpoint ?? '/').replace(/^\/+/, '')}`;
  base.pathname = path.replace(/\/{2,}/g, '/');
  return base;
}

/** The Authorization header: the first configured of Basic, Bearer, ApiKey (§A.4). */
export function authorizationOf(c: Pick<PushMonitorConfig, 'basicAuthent' | 'token' | 'apiKey'>): string | undefined {
  if (c.basicAuthent !== undefined) return `Basic ${c.basicAuthent}`;
  if (c.token !== undefined) return `Bearer ${c.token}`;
  if (c.apiKey !== undefined) return `ApiKey ${c.apiKey}`;
  return undefined;
}

export class HttpPushTarget implements PushTarget {
  private readonly url: URL;
  private readonly agent: HttpAgent;

  constructor(
    private readonly config: PushMonitorConfig,
    private readonly hostId: string,
    private readonly headerPrefix: 'X-WAARP' | 'X-SVC',
    private readonly timeoutMs: number,
    tls: PushTls | undefined,
  ) {
    this.url = restUrl(config.url, config.endpoint);
    const keepAlive = config.keepConnection;
    this.agent = this.url.protocol === 'https:'
      ? new HttpsAgent({ keepAlive, maxSockets: 1, ...(tls?.options ?? {}) })
      : new HttpAgent({ keepAlive, maxSockets: 1 });
  }

  describe(): string {
    return `push monitoring to ${this.url.origin}${this.url.pathname}`;
  }

  async push(batch: PushBatch): Promise<void> {
    const body = pushBodyChunks(batch.items);
    const length = body.reduce((n, chunk) => n + chunk.length, 0);
    const auth = authorizationOf(this.config);
    const headers: Record<string, string | number> = {
      Connection: this.config.keepConnection ? 'keep-alive' : 'close',
      ...(auth !== undefined ? { Authorization: auth } : {}),
      [`${this.headerPrefix}-ID`]: this.hostId,
      [`${this.headerPrefix}-START`]: batch.from === undefined ? '' : formatIsoLocal(batch.from),
      [`${this.headerPrefix}-STOP`]: formatIsoLocal(batch.to),
      'Content-Type': 'application/json',
      'Content-Length': length,
    };
    const { status } = await sendRequest(this.url, { method: 'POST', agent: this.agent, headers, timeoutMs: this.timeoutMs, body, maxAnswerBytes: 0 });
    if (status !== 200 && status !== 201) throw new Error(`the receiver answered HTTP ${status} (expected 200 or 201)`);
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}
