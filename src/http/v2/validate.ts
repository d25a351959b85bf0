/**
 * Request validation for v2 against the zod schemas that also produce the OpenAPI document
 * (one source of truth). zod checks each value; this layer adds the original's rules around it:
 * query values arrive as text and fail with errorCode 4; JSON field names match
 * case-insensitively; an unknown field is errorCode 5, a missing required one 6, a bad value 7
 * (or 4 where the original says so); every problem of a request is reported at once.
 */
import { z } from 'zod';
import { isSaneValue } from '../../config/values.js';
import type { JsonValue } from '../json.js';
import { ErrorList, V2Code, type V2CodeValue } from './errors.js';

/** Query parameter schemas take the raw text; transforms give the typed value. */
export type QuerySchema = z.ZodObject<Record<string, z.ZodType>>;

const TRUE_FALSE = /^(true|false)$/i;
export const qBool = z.string().regex(TRUE_FALSE).transform((s) => s.toLowerCase() === 'true');
export const qInt = z.string().regex(/^[-+]?\d{1,10}$/).transform(Number).pipe(z.number().int().min(-2147483648).max(2147483647));
export const qLong = z.string().regex(/^[-+]?\d{1,19}$/).transform((s) => BigInt(s)).refine((v) => v >= -(2n ** 63n) && v < 2n ** 63n);
export const qText = z.string();
export const qEnum = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values);

/** Values the original treats as "the first one" when repeated (rest-v2.md §9). */
export function firstValues(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first;
  }
  return out;
}

/**
 * Parses the query against the schema: unknown parameters are ignored, each invalid value gives
 * errorCode 4 naming the value and the parameter (`names` renames a parameter in messages).
 */
export function parseQuery<S extends QuerySchema>(schema: S, query: Record<string, string>, errors: ErrorList,
  names: Record<string, string> = {}): Partial<z.output<S>> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const raw = query[key];
    if (raw === undefined) continue;
    if (!isSaneValue(raw)) { errors.add(V2Code.IllegalFieldValue, `'${raw.replace(/[^\x20-\x7e]/g, '?')}'`, 'argument'); continue; }
    const res = field.safeParse(raw);
    if (res.success) out[key] = res.data;
    else errors.add(V2Code.IllegalParameterValue, `'${raw}'`, names[key] ?? key);
  }
  return out as Partial<z.output<S>>;
}

/** Integers arrive as bigint from the exact parser; zod checks plain numbers. */
function toPlain(value: JsonValue): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}

/**
 * JSON text of a value for messages ("strings keep their quotes"). Integers arrive as bigint from
 * the exact parser, at any depth: an array or object holding one (`{"blockSize":[1]}`) once made
 * this throw, and the request end in a 500 instead of its 400.
 */
export function jsonText(value: unknown): string {
  return typeof value === 'bigint' ? value.toString() : JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
}

export interface BodyRules {
  /** Fields that must be present and non-empty (errorCode 6). */
  required?: readonly string[];
  /** Unknown keys are ignored instead of errorCode 5. */
  ignoreUnknown?: boolean;
  /** errorCode used for a bad value (default 7). */
  invalidCode?: V2CodeValue;
  /** Extra accepted spellings: alias (any case) -> field name. */
  aliases?: Record<string, string>;
}

/**
 * Validates a JSON object body field by field against `schema` (a zod object). Returns the typed
 * fields that passed; problems go into `errors`.
 */
export function parseBody<S extends z.ZodObject<Record<string, z.ZodType>>>(schema: S, body: JsonValue, errors: ErrorList,
  rules: BodyRules = {}): Partial<z.output<S>> {
  const out: Record<string, unknown> = {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.add(V2Code.MalformedJSON, '0', '0', 'the body is not a JSON object');
    return out as Partial<z.output<S>>;
  }
  const byLower = new Map<string, string>();
  for (const name of Object.keys(schema.shape)) byLower.set(name.toLowerCase(), name);
  for (const [alias, name] of Object.entries(rules.aliases ?? {})) byLower.set(alias.toLowerCase(), name);
  for (const [key, raw] of Object.entries(body)) {
    const name = byLower.get(key.toLowerCase());
    if (name === undefined) {
      if (!rules.ignoreUnknown) errors.add(V2Code.UnknownField, JSON.stringify(key));
      continue;
    }
    const value = toPlain(raw);
    const res = (schema.shape[name] as z.ZodType).safeParse(value);
    if (res.success) out[name] = res.data;
    else errors.add(rules.invalidCode ?? V2Code.IllegalFieldValue, jsonText(raw), name);
  }
  for (const name of rules.required ?? []) {
    const v = out[name];
    const wasInvalid = errors.items.some((i) => i.args[i.args.length - 1] === name);
    if (!wasInvalid && (v === undefined || v === null || v === '')) errors.add(V2Code.MissingFieldValue, name);
  }
  return out as Partial<z.output<S>>;
}
