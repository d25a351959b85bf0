/**
 * v1 action bodies (rest-v1.md §8): the polymorphic JSON packets. The R66 codec of src/protocol
 * reads the wire form strictly; REST clients are more relaxed (§8 "Encodings"): booleans and
 * numbers may come as strings, dates as ISO 8601 text. The codec already reads
 * TransferRequestJsonPacket's `validate` as a byte and `additionalDelay` as a boolean (§8); a body
 * may also give them the other way round (true/false, 0/1). This module brings a body to the
 * codec's form first, naming the field when a value cannot be used, and shapes packets back.
 */
import { isSaneValue } from '../../config/values.js';
import {
  jsonClassFromString, JSON_COMMAND_FIELDS, parseJsonCommand, stringifyJsonCommand, stringifyJson, type JsonClassName, type JsonCommand,
  type JsonObject,
} from '../../protocol/index.js';
import { parseIsoDate } from '../../model/iso-date.js';
import { parseExactJson, parseLenientJson, type JsonValue } from '../json.js';

type Kind = 'string' | 'int' | 'long' | 'bool' | 'date' | 'bytes';

function normaliseField(cls: JsonClassName, field: string, kind: Kind, v: JsonValue): JsonValue {
  if (v === null) return null;
  // TransferRequestJsonPacket (§8): `validate` is a byte (a boolean is taken as 1/0), `additionalDelay` a boolean.
  if (cls === 'TransferRequestJsonPacket' && field === 'validate' && typeof v === 'boolean') return v ? 1n : 0n;
  if (cls === 'TransferRequestJsonPacket' && field === 'additionalDelay' && (typeof v === 'bigint' || (typeof v === 'string' && /^-?\d+$/.test(v.trim())))) {
    return BigInt(typeof v === 'string' ? v.trim() : v) !== 0n;
  }
  switch (kind) {
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
      throw new Error(`field "${field}" must be a boolean`);
    case 'int':
    case 'long':
      if (typeof v === 'bigint') return v;
      if (typeof v === 'string' && /^-?\d{1,19}$/.test(v.trim())) return BigInt(v.trim());
      throw new Error(`field "${field}" must be an integer`);
    case 'date': {
      if (typeof v === 'bigint') return v;
      if (typeof v === 'string') {
        if (/^-?\d{1,19}$/.test(v.trim())) return BigInt(v.trim());
        const d = parseIsoDate(v);
        if (d !== undefined) return BigInt(d.getTime());
      }
      throw new Error(`field "${field}" must be epoch milliseconds or an ISO 8601 date`);
    }
    case 'bytes':
      if (typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v)) return v;
      throw new Error(`field "${field}" must be base64`);
    default:
      if (typeof v === 'object') throw new Error(`field "${field}" must be a string`);
      return v;
  }
}

/** Reads an action body. The error text names what is wrong; it never echoes a value. */
export function readPacket(body: string): JsonCommand | { error: string } {
  if (!isSaneValue(body)) return { error: 'the body contains forbidden characters or markup' };
  let value: JsonValue;
  try {
    value = parseLenientJson(body);
  } catch (err) {
    return { error: `the body is not valid JSON: ${err instanceof Error ? err.message.replace(/^.*?: /, '') : 'syntax error'}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'the body is not a JSON object' };
  const obj = value;
  const cls = obj['@class'];
  if (cls === undefined) return { error: "missing type id property '@class'" };
  const name = typeof cls === 'string' ? jsonClassFromString(cls) : null;
  if (name === null) return { error: "unknown type id in property '@class'" };
  const fields = { comment: 'string', requestUserPacket: 'int', ...(JSON_COMMAND_FIELDS[name] as Record<string, { t: Kind }>) } as Record<string, Kind | { t: Kind }>;
  const normalised: JsonObject = Object.create(null) as JsonObject;
  normalised['@class'] = cls;
  try {
    for (const [field, spec] of Object.entries(fields)) {
      const v = obj[field];
      if (v !== undefined) normalised[field] = normaliseField(name, field, typeof spec === 'string' ? spec : spec.t, v);
    }
  } catch (err) {
    return { error: (err as Error).message };
  }
  const cmd = parseJsonCommand(stringifyJson(normalised));
  return cmd ?? { error: 'the body is not a usable JSON packet' };
}

/** A packet as the JSON the original writes (`@class` first, every field, nulls included). */
export function packetJson(cmd: JsonCommand): JsonValue {
  const out = parseExactJson(stringifyJsonCommand(cmd)) as JsonObject;
  return out;
}
