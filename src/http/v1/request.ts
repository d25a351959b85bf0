/**
 * The v1 request model (rest-v1.md §2): path decomposition, query arguments (auth values lifted
 * out, insane values dropped), authentication values from headers (which win over the query).
 */
import type { FastifyRequest } from 'fastify';
import { isSaneValue } from '../../config/values.js';

export interface V1Request {
  rawTarget: string;
  method: string;
  path: string;
  base: string;
  subpath: string[];
  /** Query arguments without the authentication ones: single values as string, repeats as arrays. */
  uri: Record<string, string | string[]>;
  authUser: string | undefined;
  authKey: string | undefined;
  authTimestamp: string | undefined;
  /** Request cookies (name -> value, sane values only): echoed in the envelope and as Set-Cookie (§3.1). */
  cookies: Record<string, string>;
  body: string;
}

/** The `Cookie` header's pairs (`a=1; b=2`); a value failing the sanity check (§2.5) is dropped. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name !== '' && isSaneValue(value) && isSaneValue(name)) out[name] = value;
  }
  return out;
}

const AUTH = new Map<string, 'authKey' | 'authUser' | 'authTimestamp'>([['x-auth-key', 'authKey'], ['x-auth-user', 'authUser'], ['x-auth-timestamp', 'authTimestamp']]);

function decodeForm(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

export function parseV1Request(req: FastifyRequest, body: string): V1Request {
  const rawTarget = req.raw.url ?? '/';
  const q = rawTarget.indexOf('?');
  const rawPath = q < 0 ? rawTarget : rawTarget.slice(0, q);
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    path = rawPath;
  }
  const segs = path.split('/').filter((s) => s !== '');
  const out: V1Request = {
    rawTarget, method: req.method.toUpperCase(), path, base: segs[0] ?? '', subpath: segs.slice(1), uri: {},
    authUser: undefined, authKey: undefined, authTimestamp: undefined, cookies: parseCookies(req.headers.cookie), body,
  };
  if (q >= 0) {
    for (const pair of rawTarget.slice(q + 1).split(/[&;]/)) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = decodeForm(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : decodeForm(pair.slice(eq + 1));
      const auth = AUTH.get(name.toLowerCase());
      if (auth !== undefined) { out[auth] ??= value; continue; }
      if (!isSaneValue(value)) continue;
      const prev = out.uri[name];
      out.uri[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
  }
  for (const [header, key] of AUTH) {
    const v = req.headers[header];
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Last value of an argument (signatures use the last one). */
export function lastValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[v.length - 1] : v;
}
