/**
 * The v2 request pipeline in the original's order (rest-v2.md §3): routing (404/405), CRUD gate
 * (405), authentication (401) and roles (403), content type (415), signature (401), then the
 * operation (2xx, 400 error list, or status only). Errors of the security layers close the
 * connection; no answer carries a stack trace.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RestFunction } from '../../config/index.js';
import { isSaneValue } from '../../config/values.js';
import type { RestListenerContext } from '../context.js';
import { findDuplicateKey, parseExactJson, stringifyV2, type JsonValue } from '../json.js';
import { authenticate, authorize, checkSignature } from './auth.js';
import { errorBody, pickLanguage, V2BadRequest, V2Code, V2RouteError, V2Status } from './errors.js';
import { crudBit, type V2ListenerState, type V2Operation, type V2Reply } from './route.js';
import { firstValues } from './validate.js';

const SERVER_FUNCTIONS: readonly RestFunction[] = ['Business', 'Config', 'Information', 'Log', 'Server', 'Control'];

/** The raw path split, percent-decoded and normalised (empty segments, `.` and `..` removed). */
export function normalisePath(rawUrl: string): string[] | undefined {
  const path = rawUrl.split('?')[0] ?? '';
  const out: string[] = [];
  for (const seg of path.split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return undefined;
    }
    if (s === '' || s === '.') continue;
    if (s === '..') out.pop();
    else out.push(s);
  }
  return out;
}

function matchPattern(pattern: string, segs: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter((p) => p !== '');
  if (parts.length !== segs.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.startsWith('{')) params[p.slice(1, -1)] = segs[i]!;
    else if (p !== segs[i]) return undefined;
  }
  return params;
}

function mediaCompatible(declared: string, header: string): boolean {
  if (declared === '*/*') return true;
  const given = (header.split(';')[0] ?? '').trim().toLowerCase();
  const [gt = '', gs = ''] = given.split('/');
  const [dt = '', ds = ''] = declared.split('/');
  return (gt === '*' || gt === dt) && (gs === '*' || gs === ds);
}

/** Line and column (1-based) of a character offset, for errorCode 2 messages. */
function lineColumn(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset).split('\n');
  return [before.length, (before[before.length - 1]?.length ?? 0) + 1];
}

export class V2Dispatcher {
  private readonly state: V2ListenerState = { lastStatusRun: null };

  constructor(private readonly ctx: RestListenerContext, private readonly operations: readonly V2Operation[]) {}

  private mask(fn: RestFunction | null): number {
    return fn === null ? 0x02 : this.ctx.rest.methods[fn] ?? 0;
  }

  /** Is the entry point of `op` routed at all on this listener (§4)? */
  private registered(op: V2Operation): boolean {
    if (op.path.startsWith('/v2/server')) return SERVER_FUNCTIONS.some((f) => (this.ctx.rest.methods[f] ?? 0) !== 0);
    return op.fn === null || this.mask(op.fn) !== 0;
  }

  async handle(req: FastifyRequest, reply: FastifyReply, rawBody: string): Promise<void> {
    const lang = pickLanguage(req.headers['accept-language'] as string | undefined);
    try {
      const answer = await this.process(req, rawBody);
      this.send(reply, answer, lang);
    } catch (err) {
      if (err instanceof V2RouteError) {
        void reply.code(err.status).headers({ 'content-type': 'text/plain', connection: 'close' }).send(err.text);
      } else if (err instanceof V2BadRequest) {
        this.send(reply, { status: 400, body: errorBody(err.items, lang) }, lang);
      } else if (err instanceof V2Status && err.explanation !== undefined) {
        void reply.code(err.status).headers({ ...err.headers, 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).send(err.explanation);
      } else if (err instanceof V2Status) {
        const close = [401, 403, 405, 415, 500].includes(err.status);
        this.send(reply, { status: err.status, headers: close ? { ...err.headers, connection: 'close' } : err.headers }, lang);
      } else {
        this.ctx.services.log.error({ err: err instanceof Error ? err.message : String(err), url: req.url.split('?')[0] }, 'REST v2 request failed');
        this.send(reply, { status: 500, headers: { connection: 'close' } }, lang);
      }
    }
  }

  private send(reply: FastifyReply, answer: V2Reply, _lang: string): void {
    reply.code(answer.status);
    for (const [k, v] of Object.entries(answer.headers ?? {})) reply.header(k, v);
    if (answer.body === undefined) {
      void reply.send();
    } else {
      reply.header('content-type', 'application/json');
      void reply.send(stringifyV2(answer.body));
    }
    if (answer.after) reply.raw.once('finish', answer.after);
  }

  private async process(req: FastifyRequest, rawBody: string): Promise<V2Reply> {
    const uri = req.raw.url ?? '/';
    const segs = normalisePath(uri);
    if (segs === undefined) throw new V2RouteError(404, uri);
    const method = req.method.toUpperCase();
    const candidates: Array<{ op: V2Operation; params: Record<string, string> }> = [];
    for (const op of this.operations) {
      if (!this.registered(op)) continue;
      const params = matchPattern(op.path, segs);
      if (params !== undefined) candidates.push({ op, params });
    }
    if (candidates.length === 0) {
      const serverRegistered = this.operations.some((o) => o.path.startsWith('/v2/server') && this.registered(o));
      if (serverRegistered && segs.length === 3 && segs[1] === 'server') {
        if (method === 'OPTIONS') throw new V2Status(302);
        throw new V2RouteError(405, uri);
      }
      if (serverRegistered && segs.length === 2 && segs[1] === 'server' && method === 'OPTIONS') return { status: 200, headers: { allow: ['OPTIONS'] } };
      throw new V2RouteError(404, uri);
    }
    if (method === 'OPTIONS') {
      const methods = [...new Set(candidates.map((c) => c.op.method)), 'OPTIONS'];
      return { status: 200, headers: { allow: methods } };
    }
    const found = candidates.find((c) => c.op.method === method);
    if (found === undefined) throw new V2RouteError(405, uri);
    const { op, params } = found;
    if ((this.mask(op.fn) & crudBit(method)) === 0) throw new V2Status(405);
    let user: string | undefined;
    if (this.ctx.rest.authenticated) {
      const host = await authenticate(this.ctx, req);
      await authorize(this.ctx, host, op.role);
      user = host.hostId;
    }
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && !mediaCompatible(op.consumes, contentType)) throw new V2Status(415, { accept: op.consumes });
    if (this.ctx.rest.authenticated && this.ctx.rest.signature) checkSignature(this.ctx, req, rawBody);
    for (const value of Object.values(params)) if (!isSaneValue(value)) throw V2BadRequest.of(V2Code.IllegalFieldValue, JSON.stringify(value), 'argument');
    const body = op.body !== undefined ? this.parseBody(rawBody, contentType, op) : undefined;
    return op.handler({
      ctx: this.ctx, params, query: firstValues(req.query as Record<string, string | string[] | undefined>), body, user, state: this.state,
    });
  }

  private parseBody(rawBody: string, contentType: string | undefined, op: V2Operation): JsonValue | undefined {
    if (rawBody.trim() === '') {
      if (op.needsBody) throw V2BadRequest.of(V2Code.MissingBody);
      return undefined;
    }
    if (!isSaneValue(rawBody)) throw V2BadRequest.of(V2Code.MalformedJSON, '0', '0', 'the body contains forbidden content');
    let value: JsonValue;
    try {
      value = parseExactJson(rawBody);
    } catch (err) {
      if (contentType === undefined) throw new V2Status(415, { accept: 'application/json' });
      const message = err instanceof Error ? err.message : 'invalid JSON';
      const offset = Number(/offset (\d+)/.exec(message)?.[1] ?? '0');
      const [line, column] = lineColumn(rawBody, offset);
      throw V2BadRequest.of(V2Code.MalformedJSON, String(line), String(column), message.replace(/^.*?: /, ''));
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw V2BadRequest.of(V2Code.MalformedJSON, '0', '0', 'the body is not a JSON object');
    }
    const dup = findDuplicateKey(rawBody);
    if (dup !== undefined) throw V2BadRequest.of(V2Code.DuplicateKey, dup);
    return value;
  }
}
