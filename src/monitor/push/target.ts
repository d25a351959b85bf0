/** What the push exporter hands to a target, and what a target is (REST or Elasticsearch). */
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import type { SslConfig } from '../../config/index.js';
import { tlsMaterialFor } from '../../net/network.js';
import type { PushItem } from './payload.js';

export interface PushBatch {
  items: PushItem[];
  /** The previous `last` (undefined: first run, whole history). */
  from: Date | undefined;
  /** This run's `now`. */
  to: Date;
}

export interface PushTarget {
  /** Resolves once the receiver accepted the whole batch; rejects otherwise (retried next run). */
  push(batch: PushBatch): Promise<void>;
  close(): Promise<void>;
  describe(): string;
}

export interface PushTls {
  options: ConnectionOptions;
}

/**
 * TLS towards a collector: the host's key store certificate as client certificate; the remote
 * certificate checked against the system roots and the host's trust store, or not at all with
 * `insecure` (the original's REST behaviour).
 */
export async function pushTls(ssl: SslConfig | null, insecure: boolean): Promise<PushTls> {
  const material = await tlsMaterialFor(ssl);
  const client = material?.client ?? {};
  const trust = client.ca === undefined ? [] : Array.isArray(client.ca) ? client.ca : [client.ca];
  const { checkServerIdentity: _ignored, ca: _ca, ...own } = client;
  return { options: { ...own, ca: [...rootCertificates, ...trust], rejectUnauthorized: !insecure } };
}
