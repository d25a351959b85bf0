/**
 * The v2 route table entry: everything the dispatcher, the validator and the OpenAPI document
 * need about one operation, declared once next to its handler.
 */
import type { z } from 'zod';
import type { RestFunction } from '../../config/index.js';
import type { RestListenerContext } from '../context.js';
import type { JsonValue } from '../json.js';
import type { QuerySchema } from './validate.js';

export type V2Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Declared request media type (rest-v2.md §2.2, §10). */
export type Consumes = 'application/json' | 'application/x-www-form-urlencoded' | '*/*';

export interface V2Request {
  ctx: RestListenerContext;
  params: Record<string, string>;
  /** First value of each query parameter. */
  query: Record<string, string>;
  /** Parsed JSON body; undefined when the request had none. */
  body: JsonValue | undefined;
  /** Authenticated user (host id), when authentication is on. */
  user: string | undefined;
  /** Listener-level state shared between requests (e.g. the last status call). */
  state: V2ListenerState;
}

export interface V2ListenerState {
  lastStatusRun: Date | null;
}

export interface V2Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string | string[]>;
  /** Runs after the answer is written (shutdown, restart). */
  after?: () => void;
}

export interface V2Operation {
  method: V2Method;
  /** OpenAPI-style path, e.g. `/v2/hosts/{id}`. */
  path: string;
  /** `restmethod` function whose CRUD mask gates the operation; null = always enabled (file monitors). */
  fn: RestFunction | null;
  role: number;
  consumes: Consumes;
  summary: string;
  query?: QuerySchema;
  body?: z.ZodType;
  /** Answer schemas per status, for the document. */
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  /** True when the JSON body is required (errorCode 1 when absent). */
  needsBody?: boolean;
  handler(req: V2Request): Promise<V2Reply>;
}

/** Needed CRUD bit of a method (rest-v2.md §4). */
export function crudBit(method: string): number {
  switch (method) {
    case 'GET': return 0x02;
    case 'POST': return 0x01;
    case 'PUT': return 0x04;
    case 'DELETE': return 0x08;
    default: return 0;
  }
}

export const json = (status: number, body: unknown, headers?: Record<string, string | string[]>): V2Reply =>
  headers === undefined ? { status, body } : { status, body, headers };
