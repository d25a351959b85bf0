/**
 * Request parameters of both areas (web-ui.md §1): query string and form-encoded body merged, the
 * original's sanity check (control characters, CDATA/ENTITY/script markup void every parameter),
 * and the few cookies the pages use.
 */
import type { FastifyRequest } from 'fastify';

export type Params = Record<string, string>;

// Control characters other than tab/CR/LF, and the markup the original refuses.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|<!\[CDATA\[|<!ENTITY|<\s*\/?\s*script/i;

export interface ParsedParams {
  params: Params;
  /** True when a parameter failed the sanity check: `params` is then empty. */
  voided: boolean;
}

/** Query and body parameters (body wins); the first value of a repeated name is kept, except checkboxes read with `has`. */
export function readParams(req: FastifyRequest): ParsedParams {
  const params: Params = {};
  const add = (search: URLSearchParams): boolean => {
    for (const [k, v] of search) {
      if (UNSAFE.test(k) || UNSAFE.test(v)) return false;
      params[k] = v;
    }
    return true;
  };
  const query = (req.raw.url ?? '').split('?')[1] ?? '';
  const body = typeof req.body === 'string' ? req.body : '';
  if (!add(new URLSearchParams(query)) || !add(new URLSearchParams(body))) return { params: {}, voided: true };
  return { params, voided: false };
}

/** A cookie's value, or undefined. */
export function cookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** A positive or zero integer parameter, or the default when absent or not a number. */
export function intParam(params: Params, name: string, fallback: number): number {
  const text = params[name];
  if (text === undefined || !/^-?\d{1,15}$/.test(text.trim())) return fallback;
  return Number(text.trim());
}

/** A checkbox or a flag: present and not `false`/`0`/`off`. */
export function flag(params: Params, name: string): boolean {
  const v = params[name];
  return v !== undefined && !['false', '0', 'off'].includes(v.toLowerCase());
}

/** A trimmed text parameter, undefined when empty. */
export function text(params: Params, name: string): string | undefined {
  const v = params[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}
