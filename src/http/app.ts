/**
 * One fastify instance per `rest` section: it reads whole bodies (every method, GET included, up
 * to the route's limit: `restbodylimit`, `restimportbodylimit` for configuration imports, counted
 * while reading, before authentication, docs/security.md), applies CORS, and hands each request to v2 (raw target starting with
 * `/v2/`) or v1 (everything else), exactly as the original splits them (rest-v1.md §1.3).
 * Our own dispatchers do the routing so the original's processing order holds.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TlsOptions } from 'node:tls';
import { securityOf } from '../config/index.js';
import { guardHttpServer } from '../net/http-gate.js';
import type { RestListenerContext } from './context.js';
import { handleCors } from './cors.js';
import { V1Dispatcher } from './v1/index.js';
import { openApiDocument, V2_OPERATIONS, V2Dispatcher } from './v2/index.js';
import { stringifyV2 } from './json.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'] as const;

/** Configuration imports (v2 and v1): their bodies may be larger (`restimportbodylimit`). */
const IMPORT_ROUTES = ['/v2/server/config', '/config', '/config/*'];

/** Where the v2 OpenAPI document is served (no authentication: it describes, it reveals nothing). */
export const OPENAPI_PATH = '/v2/openapi.json';

export function createRestApp(ctx: RestListenerContext, tls?: TlsOptions): FastifyInstance {
  const security = securityOf(ctx.services.config);
  const opts = {
    logger: false,
    // The default of every route; the import routes below declare their own.
    bodyLimit: security.restBodyLimit,
    return503OnClosing: true,
  };
  const app: FastifyInstance = (tls ? Fastify({ ...opts, https: tls }) : Fastify(opts)) as unknown as FastifyInstance;
  // Per-address and per-listener caps, the idle deadline and the host's total (net/http-gate.ts):
  // a flood of idle sockets cannot stop other addresses from being served (issue 32).
  guardHttpServer(app.server, `rest-listener:${ctx.rest.port}`, ctx.services.config, ctx.services.log);
  // The Java client sends JSON bodies with GET: read a body on every method.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const v2 = new V2Dispatcher(ctx, V2_OPERATIONS);
  const v1 = new V1Dispatcher(ctx);
  const document = stringifyV2(openApiDocument(V2_OPERATIONS));

  app.setErrorHandler((err: { statusCode?: number }, req, reply) => {
    // Framework-level refusals (413 body too large, bad content length...): status only, no detail.
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status === 500) ctx.services.log.error({ url: req.url.split('?')[0] }, 'REST request failed');
    void reply.code(status).header('connection', 'close').send();
  });

  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (handleCors(req, reply)) return reply;
    const raw = req.raw.url ?? '/';
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    if (raw.split('?')[0] === OPENAPI_PATH && req.method === 'GET') {
      return reply.code(200).header('content-type', 'application/json').send(document);
    }
    if (raw.startsWith('/v2/')) await v2.handle(req, reply, body);
    else await v1.handle(req, reply, body);
    return reply;
  };
  // One catch-all route (our dispatchers route); the configuration import routes are the same
  // handler with the larger body limit: the framework enforces each while reading the body.
  app.route({ method: [...METHODS], url: '/*', handler });
  for (const url of IMPORT_ROUTES) app.route({ method: [...METHODS], url, handler, bodyLimit: security.restImportBodyLimit });
  return app;
}
