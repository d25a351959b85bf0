/**
 * REST v1 (rest-v1.md): the processing order of §7, the JSON envelope of §3.1, the HTML error
 * page of §3.5, OPTIONS discovery of §10. Action handlers live in one module each, the five
 * data-model resources in models/ (driven by data-model.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { hasRole, type RestFunction } from '../../config/index.js';
import { isSaneValue } from '../../config/values.js';
import { newJsonCommand, type JsonClassName, type JsonCommand } from '../../protocol/index.js';
import type { RestListenerContext } from '../context.js';
import { stringifyV1, type JsonValue } from '../json.js';
import { bandwidthAction, configAction, logAction, type ActionResult } from './actions.js';
import { authenticateV1, V1HtmlError, type V1Identity } from './auth.js';
import { businessAction } from './business.js';
import { controlAction } from './control.js';
import { DATA_MODELS, dataModelOptions, runDataModel } from './data-model.js';
import { infoAction } from './info.js';
import type { DataModel } from './models/model.js';
import { packetJson, readPacket } from './packets.js';
import { parseV1Request, type V1Request } from './request.js';
import { shutdownOrBlockAction } from './server-admin.js';
import { serverStatusAction } from './server-status.js';

interface ActionHandler {
  fn: RestFunction;
  base: string;
  /** Methods this handler can serve at all (§1.2), in the fixed Allow order. */
  methods: readonly string[];
  run(ctx: RestListenerContext, id: V1Identity, method: string, cmd: JsonCommand | undefined): Promise<ActionResult> | ActionResult;
}

const ACTIONS: readonly ActionHandler[] = [
  { fn: 'Bandwidth', base: 'bandwidth', methods: ['GET', 'PUT'], run: bandwidthAction },
  { fn: 'Business', base: 'business', methods: ['GET'], run: (c, i, _m, cmd) => businessAction(c, i, cmd) },
  { fn: 'Config', base: 'config', methods: ['GET', 'PUT'], run: configAction },
  { fn: 'Information', base: 'info', methods: ['GET'], run: (c, i, _m, cmd) => infoAction(c, i, cmd) },
  { fn: 'Log', base: 'log', methods: ['GET'], run: (c, i, _m, cmd) => logAction(c, i, cmd) },
  { fn: 'Server', base: 'server', methods: ['GET', 'PUT'], run: (c, i, m, cmd) => (m === 'PUT' ? shutdownOrBlockAction(c, i, cmd) : serverStatusAction(c)) },
  { fn: 'Control', base: 'control', methods: ['GET', 'PUT', 'POST'], run: controlAction },
];

const ALLOW_ORDER = ['GET', 'PUT', 'POST', 'DELETE'] as const;
const CRUD_BY_METHOD: Record<string, number> = { POST: 0x01, GET: 0x02, PUT: 0x04, DELETE: 0x08 };
const METHOD_OVERRIDES = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE', 'CONNECT']);

function htmlPage(status: number, detail?: string): string {
  const reason = STATUS_CODES[status] ?? 'Error';
  // The detail is one of our fixed sentences (no user input, nothing to escape).
  return `<html><head><title>Error</title></head><body>Error ${reason}${detail === undefined ? '' : `: ${detail}`}</body></html>`;
}

type Handler = { kind: 'action'; h: ActionHandler } | { kind: 'model'; h: DataModel };

export class V1Dispatcher {
  constructor(private readonly ctx: RestListenerContext) {}

  /** Enabled methods of a handler (CRUD mask of its restmethod, within what it can serve), in Allow order. */
  private enabled(fn: RestFunction, serves: readonly string[]): string[] {
    const mask = this.ctx.rest.methods[fn] ?? 0;
    return ALLOW_ORDER.filter((m) => serves.includes(m) && (mask & (CRUD_BY_METHOD[m] ?? 0)) !== 0);
  }

  private handlers(): Array<{ base: string; allowed: string[]; handler: Handler }> {
    return [
      ...DATA_MODELS.map((h) => ({ base: h.base, allowed: this.enabled(h.fn, ALLOW_ORDER), handler: { kind: 'model', h } as Handler })),
      ...ACTIONS.map((h) => ({ base: h.base, allowed: this.enabled(h.fn, h.methods), handler: { kind: 'action', h } as Handler })),
    ].filter((e) => e.allowed.length > 0);
  }

  async handle(req: FastifyRequest, reply: FastifyReply, rawBody: string): Promise<void> {
    const r = parseV1Request(req, rawBody);
    try {
      await this.process(r, reply, req);
    } catch (err) {
      const status = err instanceof V1HtmlError ? err.status : 500;
      if (status === 500) this.ctx.services.log.error({ err: err instanceof Error ? err.message : String(err), path: r.path }, 'REST v1 request failed');
      void reply.code(status).headers({ 'content-type': 'text/html', referer: r.rawTarget, connection: 'close' }).send(htmlPage(status, err instanceof V1HtmlError ? err.detail : undefined));
    }
  }

  private envelope(r: V1Request, method: string): Record<string, JsonValue> {
    const env: Record<string, JsonValue> = {};
    if (r.authUser) env['X-Auth-User'] = r.authUser;
    env['X-method'] = method;
    env.path = r.path;
    env.base = r.base;
    if (r.subpath.length > 0) env.subpath = r.subpath;
    env.uri = r.uri as Record<string, JsonValue>;
    if (Object.keys(r.cookies).length > 0) env.cookie = r.cookies;
    return env;
  }

  private sendJson(reply: FastifyReply, r: V1Request, status: number, body: Record<string, JsonValue>, extra: Record<string, string> = {}): void {
    const headers: Record<string, string> = { referer: r.rawTarget, 'content-type': 'application/json', ...extra };
    if (status !== 200) headers.connection = 'close';
    // The request cookies are echoed back unchanged, one Set-Cookie each (§3.1).
    const cookies = Object.entries(r.cookies).map(([name, value]) => `${name}=${value}`);
    if (cookies.length > 0) void reply.header('set-cookie', cookies);
    // A Buffer, so the framework adds no charset parameter (the original sends none).
    void reply.code(status).headers(headers).send(Buffer.from(stringifyV1(body), 'utf8'));
  }

  /** The result part of the envelope: answer, command, detail, message, code (§3.1). */
  private finish(env: Record<string, JsonValue>, result: { answer?: JsonValue; command: string; detail?: string; code: number }): Record<string, JsonValue> {
    if (result.answer !== undefined) env.answer = result.answer;
    env.command = result.command;
    if (result.detail !== undefined) env.detail = result.detail;
    env.message = STATUS_CODES[result.code] ?? 'Error';
    env.code = result.code;
    return env;
  }

  private async process(r: V1Request, reply: FastifyReply, req: FastifyRequest): Promise<void> {
    const id = await authenticateV1(this.ctx, r, req.ip);
    let method = r.method;
    const fromQuery = r.uri['X-method'];
    if (typeof fromQuery === 'string') method = METHOD_OVERRIDES.has(fromQuery) ? fromQuery : 'TRACE';
    const header = req.headers['x-method'];
    if (typeof header === 'string') method = METHOD_OVERRIDES.has(header) ? header : 'TRACE';
    const entry = this.handlers().find((e) => e.base === r.base);
    if (entry === undefined) {
      if (method === 'OPTIONS') return this.rootOptions(r, reply);
      throw new V1HtmlError(405);
    }
    const { allowed, handler } = entry;
    if (handler.kind === 'model') {
      // Data models: method, role, then method/path shape, all refused before the handler (§7).
      if (method !== 'OPTIONS' && !allowed.includes(method)) throw new V1HtmlError(403);
      if (!hasRole(id.roles, handler.h.role)) throw new V1HtmlError(403);
      const n = r.subpath.length;
      if (((method === 'PUT' || method === 'DELETE') && n !== 1) || (method === 'POST' && n !== 0)) throw new V1HtmlError(403);
      if (n === 1) r.uri._id = r.subpath[0]!;
    } else {
      if (!r.subpath.every(isSaneValue)) throw new V1HtmlError(403);
      if (method !== 'OPTIONS' && !allowed.includes(method)) throw new V1HtmlError(405);
    }
    if (method === 'OPTIONS') {
      const allow = [...allowed, 'OPTIONS'].join(',');
      const env = this.envelope(r, method);
      env.command = 'OPTIONS';
      env.answer = { Allow: allow, UriAllowed: entry.base, DetailedAllow: this.detailedAllow(handler, allowed) };
      return this.sendJson(reply, r, 200, env, { allow });
    }
    if (handler.kind === 'model') {
      const result = await runDataModel(this.ctx, handler.h, method, r);
      return this.sendJson(reply, r, result.code, this.finish(this.envelope(r, method), result));
    }
    let cmd: JsonCommand | undefined;
    if (r.body.trim() !== '') {
      const parsed = readPacket(r.body);
      // An unreadable packet gets the minimal envelope (§3.5).
      if ('error' in parsed) return this.sendJson(reply, r, 400, { message: 'Bad Request', code: 400, detail: parsed.error });
      cmd = parsed;
    }
    const result = await handler.h.run(this.ctx, id, method, cmd);
    // GET /server is the one action answer without @model (§3.2).
    const answer: JsonValue | undefined = result.results === undefined ? undefined
      : handler.h.fn === 'Server' && method === 'GET' ? { results: result.results } : { '@model': result.model, results: result.results };
    if (result.after !== undefined) reply.raw.once('finish', result.after);
    const status = result.code === 200 ? 200 : result.httpStatus ?? 400;
    const { command, code, detail } = result;
    this.sendJson(reply, r, status, this.finish(this.envelope(r, method), { command, code, ...(detail !== undefined ? { detail } : {}), ...(answer !== undefined ? { answer } : {}) }));
  }

  private detailedAllow(handler: Handler, allowed: readonly string[]): JsonValue[] {
    if (handler.kind === 'model') return dataModelOptions(handler.h, allowed);
    const base = `/${handler.h.base}`;
    return [...allowed.map((m) => ({ [m]: actionSample(handler.h.base, m) })), { OPTIONS: { path: base, command: 'OPTIONS' } }];
  }

  private rootOptions(r: V1Request, reply: FastifyReply): void {
    const entries = this.handlers();
    const union = ALLOW_ORDER.filter((m) => entries.some((e) => e.allowed.includes(m)));
    const allow = [...union, 'OPTIONS'].join(',');
    const env = this.envelope(r, 'OPTIONS');
    env.command = 'OPTIONS';
    env.answer = {
      Allow: allow, UriAllowed: entries.map((e) => e.base).join(','),
      DetailedAllow: [...entries.map((e) => ({ [e.base]: this.detailedAllow(e.handler, e.allowed) })), { root: [{ OPTIONS: { path: '/', command: 'OPTIONS' } }] }],
    };
    this.sendJson(reply, r, 200, env, { allow });
  }
}

/**
 * The request packet each action takes per method (class, requestUserPacket), for the sample bodies
 * of OPTIONS discovery (§10.1: informative; a client builds its own).
 */
const ACTION_BODIES: Record<string, Record<string, [JsonClassName, number]>> = {
  bandwidth: { GET: ['BandwidthJsonPacket', 19], PUT: ['BandwidthJsonPacket', 19] }, business: { GET: ['BusinessRequestJsonPacket', 22] },
  config: { GET: ['ConfigExportJsonPacket', 11], PUT: ['ConfigImportJsonPacket', 12] }, info: { GET: ['InformationJsonPacket', 18] },
  log: { GET: ['LogJsonPacket', 16] }, server: { PUT: ['ShutdownOrBlockJsonPacket', 4] },
  control: { GET: ['InformationJsonPacket', 18], PUT: ['StopOrCancelJsonPacket', 10], POST: ['TransferRequestJsonPacket', 7] },
};

/** One DetailedAllow entry of an action: path, command and a sample body with the packet's defaults. */
function actionSample(base: string, method: string): JsonValue {
  const entry: Record<string, JsonValue> = { path: `/${base}`, command: ACTION_COMMANDS[base]?.[method] ?? method };
  const body = ACTION_BODIES[base]?.[method];
  if (body !== undefined) entry.body = packetJson(newJsonCommand(body[0], { requestUserPacket: body[1] } as never) as JsonCommand);
  return entry;
}

/** The `command` each action answers per method, for OPTIONS discovery (§3.3). */
const ACTION_COMMANDS: Record<string, Record<string, string>> = {
  bandwidth: { GET: 'GetBandwidth', PUT: 'SetBandwidth' }, business: { GET: 'ExecuteBusiness' }, config: { GET: 'ExportConfig', PUT: 'ImportConfig' },
  info: { GET: 'GetInformation' }, log: { GET: 'GetLog' }, server: { GET: 'GetStatus', PUT: 'ShutdownOrBlock' },
  control: { GET: 'GetTransferInformation', PUT: 'RestartTransfer|StopOrCancelTransfer', POST: 'CreateTransfer' },
};
