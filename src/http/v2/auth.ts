/**
 * v2 authentication (rest-v2.md §5), authorization (§7) and request signature (§6). Each check
 * answers with a status only: 401 + `WWW-Authenticate: Basic, HMAC`, 403, or 401 for a signature.
 */
import type { FastifyRequest } from 'fastify';
import { hasRole, parseRoleSet, Role } from '../../config/index.js';
import type { Host } from '../../model/host.js';
import { parseIsoDate } from '../../server/history/index.js';
import type { RestListenerContext } from '../context.js';
import { hmacHex, passwordMatches, clearPassword, safeEqual } from '../credentials.js';
import { parseRoles } from '../hostconfig-xml.js';
import { V2Status } from './errors.js';

const unauthorized = (): V2Status => new V2Status(401, { 'WWW-Authenticate': 'Basic, HMAC' });

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The authenticated partner, or throws 401. Basic is tried first, then HMAC. */
export async function authenticate(ctx: RestListenerContext, req: FastifyRequest): Promise<Host> {
  const { services } = ctx;
  const authorization = header(req, 'authorization') ?? '';
  // The full standard base64 token is accepted, `+` and `/` included (defect V10).
  const basic = /(?:^|\s)Basic ([A-Za-z0-9+/_-]+=*)/.exec(authorization);
  if (basic !== null) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized();
    const host = await services.store.hosts.get(decoded.slice(0, colon));
    if (host === undefined || !passwordMatches(host, services.config.identity.cryptoKey, decoded.slice(colon + 1))) throw unauthorized();
    return host;
  }
  const hmac = /^HMAC ([0-9A-Za-z]+)$/.exec(authorization.trim());
  const user = header(req, 'x-auth-user');
  const stamp = header(req, 'x-auth-timestamp');
  const key = ctx.rest.sigKey;
  if (hmac === null || user === undefined || stamp === undefined || key === undefined) throw unauthorized();
  const when = parseIsoDate(stamp);
  if (when === undefined) throw unauthorized();
  // One-sided window as in the original: only expiry is checked (§5.2 traps).
  if (services.now().getTime() > when.getTime() + ctx.rest.timeLimit) throw unauthorized();
  const host = await services.store.hosts.get(user);
  if (host === undefined) throw unauthorized();
  const password = clearPassword(host, services.config.identity.cryptoKey);
  if (password === undefined || !safeEqual(hmacHex(key, stamp + user + password), hmac[1]!)) throw unauthorized();
  return host;
}

/** Throws 403 unless the partner may run an operation needing `required` (§7.2). */
export async function authorize(ctx: RestListenerContext, host: Host, required: number): Promise<void> {
  if (host.adminRole || required === Role.NOACCESS) return;
  // No host configuration row: no roles (403), not the original's 500 (defect V9).
  const hc = await ctx.services.store.hostConfigs.get(ctx.services.config.hostId);
  let mask = 0;
  for (const entry of parseRoles(hc?.roles ?? '')) if (entry.hostName === host.hostId) mask |= parseRoleSet(entry.roleList.join(' '));
  if (!hasRole(mask, required)) throw new V2Status(403);
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
  if (authorization === undefined || signature === undefined || key === undefined) throw new V2Status(401);
  const expected = hmacHex(key, authorization + rawBody + (req.raw.url ?? '') + req.method.toUpperCase());
  if (!safeEqual(expected, signature)) throw new V2Status(401);
}
