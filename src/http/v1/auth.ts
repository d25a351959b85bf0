/**
 * The three v1 request rules (rest-v1.md §4-6): authentication of `X-Auth-User` against a
 * negative-port partner, the `X-Auth-Key` signature over the canonical query string, and the
 * symmetric timestamp window. Failures are HTML 401 pages; nothing about the secret is revealed.
 */
import { hasRole, Role } from '../../config/index.js';
import { parseIsoDate } from '../../server/history/index.js';
import type { RestListenerContext } from '../context.js';
import { clearPassword, hmacHex, safeEqual } from '../credentials.js';
import { lastValue, type V1Request } from './request.js';

export class V1HtmlError extends Error {
  constructor(readonly status: number) {
    super(`v1 ${status}`);
    this.name = 'V1HtmlError';
  }
}

export interface V1Identity {
  /** Authenticated user, or the administrator name when authentication is off. */
  user: string;
  roles: number;
}

/** The canonical string of rest-v1.md §5.2. */
export function canonicalString(req: V1Request, password: string | undefined): string {
  const entries = new Map<string, string>();
  for (const [name, value] of Object.entries(req.uri)) entries.set(name.toLowerCase(), lastValue(value) ?? '');
  entries.set('x-auth-timestamp', req.authTimestamp ?? '');
  if (req.authUser) entries.set('x-auth-user', req.authUser);
  const sorted = [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let text = `${req.path}?${sorted.map(([k, v]) => `${k}=${v}`).join('&')}`;
  if (password !== undefined) text += `&X-Auth-InternalKey=${password}`;
  return text;
}

function checkTimestamp(ctx: RestListenerContext, req: V1Request, required: boolean): void {
  const limit = ctx.rest.timeLimit;
  if (!required && limit <= 0) return;
  // A missing or unparsable timestamp is 401, not the original's 500 (defect D3).
  const when = req.authTimestamp === undefined ? undefined : parseIsoDate(req.authTimestamp);
  if (when === undefined) throw new V1HtmlError(401);
  if (limit > 0 && Math.abs(ctx.services.now().getTime() - when.getTime()) >= limit) throw new V1HtmlError(401);
}

export async function authenticateV1(ctx: RestListenerContext, req: V1Request): Promise<V1Identity> {
  const { services, rest } = ctx;
  if (!rest.authenticated) {
    if (rest.signature) {
      checkTimestamp(ctx, req, true);
      verifySignature(ctx, req, undefined);
    } else {
      checkTimestamp(ctx, req, false);
    }
    return { user: services.config.server.adminName, roles: Role.FULLADMIN };
  }
  if (!req.authUser) throw new V1HtmlError(401);
  const host = await services.store.hosts.get(req.authUser);
  const password = host === undefined ? undefined : clearPassword(host, services.config.identity.cryptoKey);
  if (host === undefined || password === undefined) throw new V1HtmlError(401);
  if (rest.signature) {
    checkTimestamp(ctx, req, true);
    verifySignature(ctx, req, password);
  } else {
    checkTimestamp(ctx, req, false);
  }
  // Only client-only (negative port) partners may use v1 (rest-v1.md §4.2 step 4).
  if (host.port >= 0) throw new V1HtmlError(401);
  let roles: number = Role.NOACCESS;
  if (host.adminRole) roles = Role.FULLADMIN;
  else {
    const entry = services.config.roles.find((r) => r.hostId === host.hostId);
    if (entry !== undefined) roles = hasRole(entry.roles, Role.FULLADMIN) ? Role.FULLADMIN : entry.roles;
  }
  return { user: host.hostId, roles };
}

function verifySignature(ctx: RestListenerContext, req: V1Request, password: string | undefined): void {
  const key = ctx.rest.sigKey;
  if (key === undefined || req.authKey === undefined) throw new V1HtmlError(401);
  const expected = hmacHex(key, canonicalString(req, password));
  if (!safeEqual(expected, req.authKey.toLowerCase())) throw new V1HtmlError(401);
}
