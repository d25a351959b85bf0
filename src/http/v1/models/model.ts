/**
 * What the five v1 data-model handlers share (rest-v1.md §11): the handler contract the
 * dispatcher drives, the refusal to throw, and readers of the loosely typed arguments (query
 * strings and JSON values mixed, upper-case column names).
 */
import type { RestFunction } from '../../../config/index.js';
import type { RestListenerContext } from '../../context.js';
import type { JsonObject, JsonValue } from '../../json.js';

/** Query arguments and JSON body fields merged (body wins), plus `_id` when the path has one. */
export type ModelArgs = Record<string, JsonValue>;

export interface DataModel {
  fn: RestFunction;
  base: string;
  /** `@model` of every item. */
  model: string;
  /** Role every request of this base needs (§9). */
  role: number;
  /** Column name -> java.sql.Types code, for the OPTIONS sample answer (§10.1). */
  columns: Record<string, number>;
  /** List filter name -> description, for the OPTIONS sample body. */
  filters: Record<string, string>;
  list(ctx: RestListenerContext, args: ModelArgs): Promise<JsonObject[]>;
  /** undefined = not found (404). */
  get(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined>;
  create(ctx: RestListenerContext, args: ModelArgs): Promise<JsonObject>;
  update(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined>;
  remove(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined>;
}

/** A refusal answered as the JSON envelope with HTTP status = code (400 bad input, 404 not found). */
export class ModelError extends Error {
  constructor(readonly code: 400 | 404 | 409, readonly detail: string) {
    super(detail);
    this.name = 'ModelError';
  }
}

/** java.sql.Types codes used by the OPTIONS samples. */
export const SQL = { BIGINT: -5, INTEGER: 4, BIT: -7, CHAR: 1, TIMESTAMP: 93, VARCHAR: 12, NVARCHAR: -9, LONGVARCHAR: -1, VARBINARY: -3 } as const;

/** Looks a column up: exact upper-case name, or any case when `anyCase` (all models but transfers). */
export function pick(args: ModelArgs, name: string, anyCase: boolean): JsonValue | undefined {
  if (Object.prototype.hasOwnProperty.call(args, name)) return args[name];
  if (!anyCase) return undefined;
  const lower = name.toLowerCase();
  const key = Object.keys(args).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : args[key];
}

/** Repeated query arguments arrive as arrays: the last one counts. */
function scalar(v: JsonValue | undefined): JsonValue | undefined {
  return Array.isArray(v) ? v[v.length - 1] : v;
}

export function text(args: ModelArgs, name: string, anyCase = true): string | undefined {
  const v = scalar(pick(args, name, anyCase));
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object') throw new ModelError(400, `${name} must be a text`);
  return String(v);
}

export function bool(args: ModelArgs, name: string, anyCase = true): boolean | undefined {
  const v = scalar(pick(args, name, anyCase));
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
  throw new ModelError(400, `${name} must be true or false`);
}

/** An integer of at most 64 bits (exact: ids near -2^63 stay bigint). */
export function long(args: ModelArgs, name: string, anyCase = true): bigint | undefined {
  const v = scalar(pick(args, name, anyCase));
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isInteger(v) ? String(v) : '';
  if (/^-?\d{1,19}$/.test(t)) {
    const n = BigInt(t);
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return n;
  }
  throw new ModelError(400, `${name} must be an integer`);
}

/** A 32-bit integer. */
export function int(args: ModelArgs, name: string, anyCase = true): number | undefined {
  const n = long(args, name, anyCase);
  if (n === undefined) return undefined;
  if (n < -(2n ** 31n) || n >= 2n ** 31n) throw new ModelError(400, `${name} is out of range`);
  return Number(n);
}

/** A transfer id from the path: 64-bit signed. */
export function parseId(id: string, what: string): bigint {
  if (!/^-?\d{1,19}$/.test(id.trim())) throw new ModelError(400, `${what} must be a number`);
  const n = BigInt(id.trim());
  if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new ModelError(400, `${what} is out of range`);
  return n;
}

/** Whitespace runs collapsed to one space (hostconfig XML texts on input, §11.4). */
export const collapse = (s: string): string => s.replace(/\s+/g, ' ');

/** The repository calls the keyed models (hosts, rules, hostconfigs, configurations) share. */
interface KeyedRepository<T> {
  get(id: string): Promise<T | undefined>;
  upsert(record: T): Promise<void>;
  delete(id: string): Promise<boolean>;
}

/** PUT of a keyed record: read, apply the supplied columns, write; undefined when absent (404). */
export async function updateKeyed<T>(repo: KeyedRepository<T>, id: string, apply: (r: T) => void, item: (r: T) => JsonObject): Promise<JsonObject | undefined> {
  const record = await repo.get(id);
  if (record === undefined) return undefined;
  apply(record);
  await repo.upsert(record);
  return item(record);
}

/** DELETE of a keyed record: the answer is the record as it was; undefined when absent (404). */
export async function removeKeyed<T>(repo: KeyedRepository<T>, id: string, item: (r: T) => JsonObject): Promise<JsonObject | undefined> {
  const record = await repo.get(id);
  if (record === undefined) return undefined;
  await repo.delete(id);
  return item(record);
}
