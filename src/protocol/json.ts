import { packetError } from './errors.js';

/**
 * A small exact JSON codec for the packets that carry int64 ids as JSON numbers.
 * JSON.parse would round ids above 2^53 through a float; here every integer literal becomes a
 * `bigint` and only literals with a fraction or exponent become a `number`. The writer emits
 * bigint as plain digits and escapes strings the way the Java host (Jackson) does.
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
/** A JSON object; keys keep their text order (integer-like keys aside, as in any JS object). */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Deepest nesting accepted; packets never need more and it bounds the parser's recursion. */
const MAX_DEPTH = 32;

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    const value = this.value(0);
    this.ws();
    if (this.pos !== this.text.length) this.fail('unexpected text after the JSON value');
    return value;
  }

  private fail(why: string): never {
    throw packetError(`invalid JSON at offset ${this.pos}: ${why}`);
  }

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.pos++;
    }
  }

  private value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    this.ws();
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (this.text.startsWith('true', this.pos)) return this.literal(4, true);
    if (this.text.startsWith('false', this.pos)) return this.literal(5, false);
    if (this.text.startsWith('null', this.pos)) return this.literal(4, null);
    return this.fail(c === undefined ? 'unexpected end' : `unexpected character ${JSON.stringify(c)}`);
  }

  private literal<T>(length: number, value: T): T {
    this.pos += length;
    return value;
  }

  private object(depth: number): JsonObject {
    const out: JsonObject = Object.create(null) as JsonObject;
    this.pos++;
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail('expected a property name');
      const key = this.string();
      this.ws();
      if (this.text[this.pos] !== ':') this.fail('expected ":"');
      this.pos++;
      out[key] = this.value(depth + 1);
      this.ws();
      const c = this.text[this.pos++];
      if (c === '}') return out;
      if (c !== ',') this.fail('expected "," or "}"');
    }
  }

  private array(depth: number): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail('expected "," or "]"');
    }
  }

  private number(): number | bigint {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!m) return this.fail('malformed number');
    this.pos += m[0].length;
    if (m[1] === undefined && m[2] === undefined) return BigInt(m[0]);
    return Number(m[0]);
  }

  private string(): string {
    const t = this.text;
    let out = '';
    let start = ++this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail('unterminated string');
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        out += t.slice(start, this.pos++);
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(start, this.pos);
      const e = t[this.pos + 1];
      this.pos += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = t.slice(this.pos, this.pos + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 4;
          break;
        }
        default: this.fail('bad escape');
      }
      start = this.pos;
    }
  }
}

/** Parses JSON text exactly (integers as bigint). Throws a ProtocolError on bad syntax. */
export function parseJson(text: string): JsonValue {
  return new Parser(text).parseDocument();
}

/** Parses JSON text that must be an object. Throws a ProtocolError otherwise. */
export function parseJsonObject(text: string): JsonObject {
  const v = parseJson(text);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw packetError('JSON value is not an object');
  return v;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A JSON string literal as the Java host writes it: short escapes for `" \ \b \f \n \r \t`,
 * `\uXXXX` (upper-case hex) for other control characters and for every non-ASCII character.
 */
export function jsonString(text: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${text.replace(/["\\\u0000-\u001f\u007f-\uffff]/g, (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)}"`;
}

/** Serialises a value compactly (no spaces), bigint as exact digits, strings as jsonString. */
export function stringifyJson(value: JsonValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean': return value ? 'true' : 'false';
    case 'bigint': return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError('JSON cannot carry a non-finite number');
      return String(value);
    case 'string': return jsonString(value);
  }
  if (Array.isArray(value)) return `[${value.map(stringifyJson).join(',')}]`;
  return `{${Object.keys(value).map((k) => `${jsonString(k)}:${stringifyJson(value[k] as JsonValue)}`).join(',')}}`;
}

/** Reads an integer property (bigint literal) of a parsed object; missing -> `dflt`. */
export function jsonLong(obj: JsonObject, key: string, dflt: bigint): bigint {
  const v = obj[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  throw packetError(`JSON property "${key}" must be an integer`);
}

/** Reads an int32 property; missing -> `dflt`. */
export function jsonInt(obj: JsonObject, key: string, dflt: number): number {
  const v = jsonLong(obj, key, BigInt(dflt));
  if (v < -0x80000000n || v > 0x7fffffffn) throw packetError(`JSON property "${key}" is out of the int32 range`);
  return Number(v);
}

/** Reads a string property; missing or null -> `dflt`. Scalars are taken as their text, as Jackson does. */
export function jsonStr<D extends string | null>(obj: JsonObject, key: string, dflt: D): string | D {
  const v = obj[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'string') return v;
  if (typeof v === 'object') throw packetError(`JSON property "${key}" must be a string`);
  return stringifyJson(v);
}

/** Reads a boolean property; missing -> `dflt`. */
export function jsonBool(obj: JsonObject, key: string, dflt: boolean): boolean {
  const v = obj[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  throw packetError(`JSON property "${key}" must be a boolean`);
}
