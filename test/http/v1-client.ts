// A REST v1 client for the tests: signs requests exactly as rest-v1.md §5.2 describes (written
// from the spec, not from the server code, so the two check each other).
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { SIG_KEY, type Harness } from './harness.js';

export interface V1CallOptions {
  user?: string;
  /** Clear password used in the signature (authenticated listeners). */
  password?: string;
  body?: string;
  /** Timestamp text; default now. null = send none. */
  stamp?: string | null;
  /** Replace the computed signature. null = send none. */
  key?: string | null;
  /** Sign without the internal key (unauthenticated listeners). */
  noInternalKey?: boolean;
  headers?: Record<string, string>;
}

export interface V1Answer {
  status: number;
  text: string;
  headers: Headers;
  json(): Record<string, unknown>;
}

/** ISO 8601 with milliseconds and a numeric offset, as the Java client stamps requests. */
export function javaStamp(d: Date): string {
  const off = -d.getTimezoneOffset();
  const p = (n: number, w = 2): string => String(Math.abs(n)).padStart(w, '0');
  const local = new Date(d.getTime() + off * 60_000);
  return `${local.toISOString().slice(0, 23)}${off >= 0 ? '+' : '-'}${p(Math.trunc(off / 60))}:${p(off % 60)}`;
}

export function signV1(path: string, stamp: string, user: string | undefined, password: string | undefined, sigKey: Buffer | string = SIG_KEY): string {
  const [p, q] = path.split('?');
  const args = new Map<string, string>();
  for (const pair of (q ?? '').split('&').filter((s) => s !== '')) {
    const [name = '', value = ''] = pair.split('=').map((s) => decodeURIComponent(s.replace(/\+/g, ' ')));
    if (!['x-auth-key', 'x-auth-user', 'x-auth-timestamp'].includes(name.toLowerCase())) args.set(name.toLowerCase(), value);
  }
  args.set('x-auth-timestamp', stamp);
  if (user) args.set('x-auth-user', user);
  const sorted = [...args.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let text = `${decodeURIComponent(p!)}?${sorted.map(([k, v]) => `${k}=${v}`).join('&')}`;
  if (password !== undefined) text += `&X-Auth-InternalKey=${password}`;
  return createHmac('sha256', sigKey).update(text, 'utf8').digest('hex');
}

export async function v1(h: Harness, method: string, path: string, o: V1CallOptions = {}): Promise<V1Answer> {
  const headers: Record<string, string> = { ...o.headers };
  const stamp = o.stamp === undefined ? javaStamp(new Date()) : o.stamp;
  if (o.user !== undefined) headers['x-auth-user'] = o.user;
  if (stamp !== null) headers['x-auth-timestamp'] = stamp;
  const key = o.key === undefined ? signV1(path, stamp ?? '', o.user, o.noInternalKey ? undefined : o.password) : o.key;
  if (key !== null) headers['x-auth-key'] = key;
  if (o.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(o.body));
  }
  // node:http rather than fetch: the Java client sends bodies with GET, which fetch refuses.
  const url = new URL(h.base + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const hs = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) hs.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode ?? 0, text, headers: hs, json: () => JSON.parse(text) as Record<string, unknown> });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** `@class` of a packet. */
export const cls = (name: string): string => `org.waarp.openr66.protocol.localhandler.packet.json.${name}`;
