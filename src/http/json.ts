/**
 * JSON for REST: exact 64-bit integers both ways (ids near -2^63 must not pass through doubles),
 * the two output flavours (v2 writes non-ASCII raw, v1 escapes it as the original's writer does)
 * and the duplicate-key detection v2 reports as errorCode 3.
 */
import { parseJson, stringifyJson, type JsonObject, type JsonValue } from '../protocol/index.js';

export type { JsonObject, JsonValue };

/** Parses exactly (integers as bigint). Throws on bad syntax. */
export function parseExactJson(text: string): JsonValue {
  return parseJson(text);
}

/**
 * The original's lenient reading of v1 bodies (rest-v1.md §2.6): single-quoted strings and unquoted
 * field names are accepted. The text is brought to standard JSON (a single-quoted string becomes a
 * double-quoted one, a bare name before `:` is quoted), then parsed exactly. Anything else stays
 * strict: a bare word as a value is still a syntax error.
 */
export function parseLenientJson(text: string): JsonValue {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "'") {
      let j = i + 1;
      let inner = '';
      while (j < text.length && text[j] !== "'") {
        if (text[j] === '\\' && text[j + 1] === "'") { inner += "'"; j += 2; continue; }
        if (text[j] === '\\') { inner += text.slice(j, j + 2); j += 2; continue; }
        inner += text[j] === '"' ? '\\"' : text[j];
        j++;
      }
      if (j >= text.length) throw new SyntaxError('unterminated single-quoted string');
      out += `"${inner}"`;
      i = j + 1;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))![0];
      const after = /^\s*:/.test(text.slice(i + m.length));
      out += after ? `"${m}"` : m;
      i += m.length;
    } else {
      out += c;
      i++;
    }
  }
  return parseJson(out);
}

/** v2 output: compact, bigint as digits, non-ASCII raw. `undefined` members are left out. */
export function stringifyV2(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint': return value.toString();
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'string': return JSON.stringify(value);
    default: break;
  }
  if (Array.isArray(value)) return `[${value.map(stringifyV2).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stringifyV2(v)}`).join(',')}}`;
}

/** v1 output: the original escapes every non-ASCII character as `\uXXXX`. */
export function stringifyV1(value: JsonValue): string {
  return stringifyJson(value);
}

/**
 * The first key that occurs twice in one object of `text` (already known to be valid JSON), or
 * undefined. A small scanner: strings are skipped with their escapes, one key set per open object.
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  let expectKey = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === '{') { stack.push(new Set()); expectKey = true; } else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') expectKey = stack[stack.length - 1] != null;
    i++;
  }
  return undefined;
}
