/**
 * The three v1 request rules (rest-v1.md §4-6): authentication of `X-Auth-User` against a
 * negative-port partner, the `X-Auth-Key` signature over the canonical query string, and the
 * symmetric timestamp window. Failures are HTML 401 pages; nothing about the secret is revealed.
 */
import { hasRole, Role } from '../../config/index.js';
import { parseIsoDate } from '../../model/iso-date.js';
import { guardOf } from '../auth-guard.js';
import type { RestListenerContext } from '../context.js';
import { clearPassword, hmacHex, safeEqual } from '../credentials.js';
import { lastValue, type V1Request } from './request.js';

export class V1HtmlError extends Error {
  /** `detail`: a sentence the page shows (a refusal the user can act on); none for credential failures. */
  constructor(readonly status: number, readonly detail?: string) {
    super(`v1 ${status}`);
    this.name = 'V1HtmlError';
  }
}

const V1_NO_KEY_MESSAGE = 'REST v1 needs signed requests and no restsigkey is configured on this server; use REST v2 with Basic authentication';

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

/** Credentials refused: counted by the lockout (auth-guard.ts), answered 401 without detail. */
class Refused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function checkTimestamp(ctx: RestListenerContext, req: V1Request, required: boolean): void {
  const limit = ctx.rest.timeLimit;
  if (!required && limit <= 0) return;
  // A missing or unparsable timestamp is 401, not the original's 500 (defect D3).
  const when = req.authTimestamp === undefined ? undefined : parseIsoDate(req.authTimestamp);
  if (when === undefined) throw new Refused('missing or unreadable timestamp');
  // Within resttimelimit (or restclockskew without one) of now, both ways (auth-guard.ts).
  if (!guardOf(ctx).timestampAccepted(when, ctx.services.now(), limit)) throw new Refused('timestamp outside the accepted window');
}

/**
 * The v1 identity of a request from `ip`. A locked-out address or user is refused before anything
 * is checked; a refused credential is logged and counted (auth-guard.ts).
 */
export async function authenticateV1(ctx: RestListenerContext, req: V1Request, ip?: string): Promise<V1Identity> {
  const guard = guardOf(ctx);
  if (guard.isLocked(ip, req.authUser)) throw new V1HtmlError(401);
  try {
    const id = await identify(ctx, req);
    if (ctx.rest.authenticated) guard.succeeded(ip, id.user);
    return id;
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    guard.failed(ip, req.authUser, err.reason);
    throw new V1HtmlError(401);
  }
}

async function identify(ctx: RestListenerContext, req: V1Request): Promise<V1Identity> {
  const { services, rest } = ctx;
  // v1 has no Basic: with authentication or signatures on, it needs the key (absent: refused, told why).
  if ((rest.authenticated || rest.signature) && rest.sigKey === undefined) throw new V1HtmlError(401, V1_NO_KEY_MESSAGE);
  if (!rest.authenticated) {
    if (rest.signature) {
      checkTimestamp(ctx, req, true);
      verifySignature(ctx, req, undefined);
    } else {
      checkTimestamp(ctx, req, false);
    }
    return { user: services.config.server.adminName, roles: Role.FULLADMIN };
  }
  if (!req.authUser) throw new Refused('no X-Auth-User');
  const host = await services.store.hosts.get(req.authUser);
  const password = host === undefined ? undefined : clearPassword(host, services.config.identity.cryptoKey);
  if (host === undefined || password === undefined) throw new Refused('unknown user');
  if (rest.signature) {
    checkTimestamp(ctx, req, true);
    verifySignature(ctx, req, password);
  } else {
    checkTimestamp(ctx, req, false);
  }
  // Only client-only (negative port) partners may use v1 (rest-v1.md §4.2 step 4).
  if (host.port >= 0) throw new Refused('not a client-only partner');
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
  if (key === undefined || req.authKey === undefined) throw new Refused('no X-Auth-Key');
  const expected = hmacHex(key, canonicalString(req, password));
  if (!safeEqual(expected, req.authKey.toLowerCase())) throw new Refused('signature does not match');
}
