/**
 * REST v1 (rest-v1.md): the processing order of §7, the JSON envelope of §3.1, the HTML error
 * page of §3.5, OPTIONS discovery of §10. Action handlers live in actions.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { RestFunction } from '../../config/index.js';
import type { JsonCommand } from '../../protocol/index.js';
import type { RestListenerContext } from '../context.js';
import { stringifyV1, type JsonValue } from '../json.js';
import { bandwidthAction, configAction, logAction, parsePacket, type ActionResult } from './actions.js';
import { authenticateV1, V1HtmlError, type V1Identity } from './auth.js';
import { parseV1Request, type V1Request } from './request.js';
import { serverStatusAction } from './server-status.js';

interface ActionHandler {
  fn: RestFunction;
  base: string;
  /** Methods this handler can serve at all (§1.2), in the fixed Allow order. */
  methods: readonly string[];
  run(ctx: RestListenerContext, id: V1Identity, method: string, cmd: JsonCommand | undefined): Promise<ActionResult>;
}

const ACTIONS: readonly ActionHandler[] = [
  { fn: 'Bandwidth', base: 'bandwidth', methods: ['GET', 'PUT'], run: bandwidthAction },
  { fn: 'Config', base: 'config', methods: ['GET', 'PUT'], run: configAction },
  { fn: 'Log', base: 'log', methods: ['GET'], run: (c, i, _m, cmd) => logAction(c, i, cmd) },
  { fn: 'Server', base: 'server', methods: ['GET'], run: (c) => serverStatusAction(c) },
];

const CRUD_BY_METHOD: Record<string, number> = { POST: 0x01, GET: 0x02, PUT: 0x04, DELETE: 0x08 };
const METHOD_OVERRIDES = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE', 'CONNECT']);

function htmlPage(status: number): string {
  const reason = STATUS_CODES[status] ?? 'Error';
  return `<html><head><title>Error</title></head><body>Error ${reason}</body></html>`;
}

export class V1Dispatcher {
  constructor(private readonly ctx: RestListenerContext) {}

  private enabled(h: ActionHandler): string[] {
    const mask = this.ctx.rest.methods[h.fn] ?? 0;
    return h.methods.filter((m) => (mask & (CRUD_BY_METHOD[m] ?? 0)) !== 0);
  }

  async handle(req: FastifyRequest, reply: FastifyReply, rawBody: string): Promise<void> {
    const r = parseV1Request(req, rawBody);
    try {
      await this.process(r, reply, req);
    } catch (err) {
      const status = err instanceof V1HtmlError ? err.status : 500;
      if (status === 500) this.ctx.services.log.error({ err: err instanceof Error ? err.message : String(err), path: r.path }, 'REST v1 request failed');
      void reply.code(status).headers({ 'content-type': 'text/html', referer: r.rawTarget, connection: 'close' }).send(htmlPage(status));
    }
  }

  private envelope(r: V1Request, _id: V1Identity | undefined, method: string): Record<string, JsonValue> {
    const env: Record<string, JsonValue> = {};
    if (r.authUser) env['X-Auth-User'] = r.authUser;
    env['X-method'] = method;
    env.path = r.path;
    env.base = r.base;
    if (r.subpath.length > 0) env.subpath = r.subpath;
    env.uri = r.uri as Record<string, JsonValue>;
    return env;
  }

  private sendJson(reply: FastifyReply, r: V1Request, status: number, body: Record<string, JsonValue>, extra: Record<string, string> = {}): void {
    const headers: Record<string, string> = { referer: r.rawTarget, 'content-type': 'application/json', ...extra };
    if (status !== 200) headers.connection = 'close';
    void reply.code(status).headers(headers).send(stringifyV1(body));
  }

  private async process(r: V1Request, reply: FastifyReply, req: FastifyRequest): Promise<void> {
    const id = await authenticateV1(this.ctx, r);
    let method = r.method;
    const fromQuery = r.uri['X-method'];
    if (typeof fromQuery === 'string') method = METHOD_OVERRIDES.has(fromQuery) ? fromQuery : 'TRACE';
    const header = req.headers['x-method'];
    if (typeof header === 'string') method = METHOD_OVERRIDES.has(header) ? header : 'TRACE';
    const handler = ACTIONS.find((h) => h.base === r.base && this.enabled(h).length > 0);
    if (handler === undefined) {
      if (method === 'OPTIONS') return this.rootOptions(r, reply, id);
      throw new V1HtmlError(405);
    }
    const allowed = this.enabled(handler);
    if (method === 'OPTIONS') {
      const allow = [...allowed, 'OPTIONS'].join(',');
      const env = this.envelope(r, id, method);
      env.command = 'OPTIONS';
      env.answer = { Allow: allow, UriAllowed: handler.base, DetailedAllow: [...allowed, 'OPTIONS'].map((m) => ({ [m]: { path: `/${handler.base}`, command: m } })) };
      return this.sendJson(reply, r, 200, env, { allow });
    }
    if (!allowed.includes(method)) throw new V1HtmlError(405);
    let cmd: JsonCommand | undefined;
    if (r.body.trim() !== '') {
      const parsed = parsePacket(r.body);
      if ('error' in parsed) return this.sendJson(reply, r, 400, { message: 'Bad Request', code: 400, detail: parsed.error });
      cmd = parsed;
    }
    const result = await handler.run(this.ctx, id, method, cmd);
    const env = this.envelope(r, id, method);
    if (result.results !== undefined) {
      env.answer = handler.fn === 'Server' ? { results: result.results } : { '@model': result.model, results: result.results };
    }
    env.command = result.command;
    if (result.detail !== undefined) env.detail = result.detail;
    env.message = STATUS_CODES[result.code] ?? 'Error';
    env.code = result.code;
    const status = result.code === 200 ? 200 : result.httpStatus ?? 400;
    this.sendJson(reply, r, status, env);
  }

  private rootOptions(r: V1Request, reply: FastifyReply, id: V1Identity): void {
    const handlers = ACTIONS.filter((h) => this.enabled(h).length > 0);
    const union = ['GET', 'PUT', 'POST', 'DELETE'].filter((m) => handlers.some((h) => this.enabled(h).includes(m)));
    const allow = [...union, 'OPTIONS'].join(',');
    const env = this.envelope(r, id, 'OPTIONS');
    env.command = 'OPTIONS';
    env.answer = {
      Allow: allow, UriAllowed: handlers.map((h) => h.base).join(','),
      DetailedAllow: [...handlers.map((h) => ({ [h.base]: [...this.enabled(h), 'OPTIONS'].map((m) => ({ [m]: { path: `/${h.base}`, command: m } })) })),
        { root: [{ OPTIONS: { path: '/', command: 'OPTIONS' } }] }],
    };
    this.sendJson(reply, r, 200, env, { allow });
  }
}
