/**
 * v2 authentication (rest-v2.md §5), authorization (§7) and request signature (§6). Each check
 * answers with a status only: 401 + `WWW-Authenticate: Basic, HMAC`, 403, or 401 for a signature.
 */
import type { FastifyRequest } from 'fastify';
import { hasRole, parseRoleSet, Role } from '../../config/index.js';
import type { Host } from '../../model/host.js';
import { parseIsoDate } from '../../model/iso-date.js';
import { guardOf } from '../auth-guard.js';
import type { RestListenerContext } from '../context.js';
import { hmacHex, passwordMatches, clearPassword, safeEqual } from '../credentials.js';
import { parseRoles } from '../../config/hostconfig-xml.js';
import { V2Status } from './errors.js';

const unauthorized = (): V2Status => new V2Status(401, { 'WWW-Authenticate': 'Basic, HMAC' });

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** HMAC and signatures need the `restsigkey`: without one (allowed, as in the original) Basic only. */
export const NO_KEY_MESSAGE = 'HMAC authentication and request signatures are not available on this server: no restsigkey is configured; use Basic authentication';

type Check = { host: Host } | { user: string | undefined; reason: string };

/**
 * The Basic credentials of a request: undefined without a Basic token, `{ user: undefined }` for a
 * token without a colon. The full standard base64 token is accepted, `+` and `/` included (V10).
 */
function basicCredentials(req: FastifyRequest): { user: string | undefined; password: string } | undefined {
  const basic = /(?:^|\s)Basic ([A-Za-z0-9+/_-]+=*)/.exec(header(req, 'authorization') ?? '');
  if (basic === null) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? { user: undefined, password: '' } : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The user a request claims to be (Basic or HMAC), before anything is checked. */
function claimedUser(req: FastifyRequest): string | undefined {
  const basic = basicCredentials(req);
  return basic === undefined ? header(req, 'x-auth-user') : basic.user;
}

/**
 * The authenticated partner, or throws 401. Basic is tried first, then HMAC. A locked-out address
 * or user is refused before its credentials are looked at; every failure is logged and counted
 * (auth-guard.ts).
 */
export async function authenticate(ctx: RestListenerContext, req: FastifyRequest): Promise<Host> {
  const guard = guardOf(ctx);
  if (guard.isLocked(req.ip, claimedUser(req))) throw unauthorized();
  const outcome = await check(ctx, req);
  if ('host' in outcome) {
    guard.succeeded(req.ip, outcome.host.hostId);
    return outcome.host;
  }
  guard.failed(req.ip, outcome.user, outcome.reason);
  throw unauthorized();
}

async function check(ctx: RestListenerContext, req: FastifyRequest): Promise<Check> {
  const { services } = ctx;
  const authorization = header(req, 'authorization') ?? '';
  const basic = basicCredentials(req);
  if (basic !== undefined) {
    const { user, password } = basic;
    if (user === undefined) return { user: undefined, reason: 'Basic credentials without a colon' };
    const host = await services.store.hosts.get(user);
    if (host === undefined) return { user, reason: 'unknown user' };
    if (!passwordMatches(host, services.config.identity.cryptoKey, password)) return { user, reason: 'password does not match' };
    return { host };
  }
  const hmac = /^HMAC ([0-9A-Za-z]+)$/.exec(authorization.trim());
  const user = header(req, 'x-auth-user');
  const stamp = header(req, 'x-auth-timestamp');
  const key = ctx.rest.sigKey;
  if (hmac !== null && key === undefined) throw new V2Status(401, { 'WWW-Authenticate': 'Basic' }, NO_KEY_MESSAGE);
  if (hmac === null || user === undefined || stamp === undefined || key === undefined) return { user, reason: 'no credentials' };
  const when = parseIsoDate(stamp);
  if (when === undefined) return { user, reason: 'unreadable timestamp' };
  // Both directions, within the configured skew (the original only expired past timestamps).
  if (!guardOf(ctx).timestampAccepted(when, services.now(), ctx.rest.timeLimit)) return { user, reason: 'timestamp outside the accepted window' };
  const host = await services.store.hosts.get(user);
  if (host === undefined) return { user, reason: 'unknown user' };
  const password = clearPassword(host, services.config.identity.cryptoKey);
  if (password === undefined || !safeEqual(hmacHex(key, stamp + user + password), hmac[1]!)) return { user, reason: 'HMAC does not match' };
  return { host };
}

/** Throws 403 unless the partner may run an operation needing `required` (§7.2). */
export async function authorize(ctx: RestListenerContext, host: Host, required: number): Promise<void> {
  if (!(await holdsRole(ctx, host, required))) throw new V2Status(403);
}

async function holdsRole(ctx: RestListenerContext, host: Host, required: number): Promise<boolean> {
  if (host.adminRole || required === Role.NOACCESS) return true;
  // No host configuration row: no roles (403), not the original's 500 (defect V9).
  const hc = await ctx.services.store.hostConfigs.get(ctx.services.config.hostId);
  let mask = 0;
  for (const entry of parseRoles(hc?.roles ?? '')) if (entry.hostName === host.hostId) mask |= parseRoleSet(entry.roleList.join(' '));
  return hasRole(mask, required);
}

/**
 * Whether the caller of a request holds `role` (true when REST authentication is off: every caller
 * is then the administrator, as in the original). Used where an answer shows more to some roles.
 */
export async function callerHolds(ctx: RestListenerContext, user: string | undefined, role: number): Promise<boolean> {
  if (!ctx.rest.authenticated) return true;
  const host = user === undefined ? undefined : await ctx.services.store.hosts.get(user);
  return host !== undefined && (await holdsRole(ctx, host, role));
}

/**
 * The request signature (§6): HMAC of Authorization + body + raw request-target + method. Only
 * checked for non-empty bodies; a mismatch is refused and the operation never runs (defect V7).
 */
export function checkSignature(ctx: RestListenerContext, req: FastifyRequest, rawBody: string): void {
  if (rawBody === '') return;
  const authorization = header(req, 'authorization');
  const signature = header(req, 'x-auth-signature');
  const key = ctx.rest.sigKey;
  // Without a key nothing can be signed: Basic requests go on unsigned, a signed one is told why.
  if (key === undefined) {
    if (signature !== undefined) throw new V2Status(401, { 'WWW-Authenticate': 'Basic' }, NO_KEY_MESSAGE);
    return;
  }
  if (authorization === undefined || signature === undefined || key === undefined) throw new V2Status(401);
  const expected = hmacHex(key, authorization + rawBody + (req.raw.url ?? '') + req.method.toUpperCase());
  if (!safeEqual(expected, signature)) throw new V2Status(401);
}
