/** CORS in front of v1 and v2 (rest-v2.md §2.3): any origin, preflights answered here without authentication. */
import type { FastifyReply, FastifyRequest } from 'fastify';

const EXPOSED = 'Allow, transferURI, hostURI, ruleURI, transfer-uri, host-uri';

/** True when the request was a preflight and has been answered. */
export function handleCors(req: FastifyRequest, reply: FastifyReply): boolean {
  if (req.headers.origin === undefined) return false;
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    void reply.code(200).headers({
      date: new Date().toUTCString(),
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers': 'Authorization, X-Auth-User, X-Auth-Timestamp, X-Auth-Signature, Content-Type',
      'access-control-max-age': '600',
      'content-length': '0',
    }).send();
    return true;
  }
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', EXPOSED);
  return false;
}
