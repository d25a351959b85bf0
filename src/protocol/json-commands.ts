import { ILLEGALVALUE } from './constants.js';
import { ProtocolError } from './errors.js';
import { jsonBool, jsonInt, jsonLong, jsonStr, jsonString, parseJsonObject, type JsonObject } from './json.js';
import { packetError } from './errors.js';

/**
 * The JSON command objects carried by JsonCommand packets (packets §16). Each class is described
 * once, as an ordered field table, and both the TypeScript type and the codec derive from it, so
 * the wire order (the Java host's serialisation order) and the type can never disagree.
 */

/** Package prefix of every `@class` value; a wire literal, kept verbatim. */
export const JSON_CLASS_PREFIX = 'org.waarp.openr66.protocol.localhandler.packet.json.';

type FieldKind = 'string' | 'int' | 'long' | 'bool' | 'date' | 'bytes';
interface FieldSpec<K extends FieldKind = FieldKind, D = unknown> {
  readonly t: K;
  readonly d: D;
}
const str = (): FieldSpec<'string', null> => ({ t: 'string', d: null });
const int = (d = 0): FieldSpec<'int', number> => ({ t: 'int', d });
const long = (d = 0n): FieldSpec<'long', bigint> => ({ t: 'long', d });
const bool = (d = false): FieldSpec<'bool', boolean> => ({ t: 'bool', d });
const date = (): FieldSpec<'date', null> => ({ t: 'date', d: null });
const bytes = (): FieldSpec<'bytes', null> => ({ t: 'bytes', d: null });

const CONFIG_EXPORT = { host: bool(), rule: bool(), business: bool(), alias: bool(), roles: bool() };
const CONFIG_IMPORT = {
  purgehost: bool(), purgerule: bool(), purgebusiness: bool(), purgealias: bool(), purgeroles: bool(),
  host: str(), rule: str(), business: str(), alias: str(), roles: str(),
  hostid: long(ILLEGALVALUE), ruleid: long(ILLEGALVALUE), businessid: long(ILLEGALVALUE), aliasid: long(ILLEGALVALUE), rolesid: long(ILLEGALVALUE),
};
const LOG = {
  purge: bool(), clean: bool(), statuspending: bool(), statustransfer: bool(), statusdone: bool(), statuserror: bool(),
  rule: str(), request: str(), start: date(), stop: date(), startid: str(), stopid: str(),
};

/** Field tables per class (short name), in the Java serialisation order, after comment/requestUserPacket. */
export const JSON_COMMAND_FIELDS = {
  JsonPacket: {},
  RestartTransferJsonPacket: { requester: str(), requested: str(), specialid: long(ILLEGALVALUE), restarttime: date() },
  RequestJsonPacket: { filename: str(), filesize: long(-1n), fileInfo: str() },
  ShutdownRequestJsonPacket: { rank: int(-1) },
  StopOrCancelJsonPacket: { requester: str(), requested: str(), specialid: long(ILLEGALVALUE) },
  ConfigExportJsonPacket: CONFIG_EXPORT,
  ConfigExportResponseJsonPacket: {
    ...CONFIG_EXPORT, command: int(), filehost: str(), filerule: str(), filebusiness: str(), filealias: str(), fileroles: str(),
  },
  ConfigImportJsonPacket: CONFIG_IMPORT,
  ConfigImportResponseJsonPacket: {
    ...CONFIG_IMPORT, command: int(),
    purgedhost: bool(), purgedrule: bool(), purgedbusiness: bool(), purgedalias: bool(), purgedroles: bool(),
    importedhost: bool(), importedrule: bool(), importedbusiness: bool(), importedalias: bool(), importedroles: bool(),
  },
  LogJsonPacket: LOG,
  LogResponseJsonPacket: { ...LOG, command: int(), filename: str(), exported: long(), purged: long() },
  InformationJsonPacket: { id: long(), request: int(), rulename: str(), filename: str(), idRequest: bool(), to: bool() },
  BandwidthJsonPacket: { setter: bool(), writeglobal: long(-10n), readglobal: long(-10n), writesession: long(-10n), readsession: long(-10n) },
  BusinessRequestJsonPacket: { className: str(), arguments: str(), extraArguments: str(), delay: int(), toApplied: bool(), validated: bool() },
  ShutdownOrBlockJsonPacket: { key: bytes(), shutdownOrBlock: bool(), restartOrBlock: bool() },
  TransferRequestJsonPacket: {
    rulename: str(), mode: int(), filename: str(), requested: str(), blocksize: int(), rank: int(), specialId: long(ILLEGALVALUE),
    // `validate` is a byte (0 = still to validate), `additionalDelay` a boolean (rest-v1.md §8);
    // `toValidate` is output only: always written as `validate == 0`, ignored when read.
    validate: int(), originalSize: long(-1n), fileInformation: { t: 'string', d: '' } as FieldSpec<'string', string>,
    separator: { t: 'string', d: '{' } as FieldSpec<'string', string>, start: date(), delay: long(), additionalDelay: bool(), toValidate: bool(true),
  },
} as const satisfies Record<string, Record<string, FieldSpec>>;

/** Short class name (after JSON_CLASS_PREFIX). */
export type JsonClassName = keyof typeof JSON_COMMAND_FIELDS;

type ValueOf<S> = S extends FieldSpec<'string', string> ? string
  : S extends FieldSpec<'string'> ? string | null
  : S extends FieldSpec<'int'> ? number
  : S extends FieldSpec<'long'> ? bigint
  : S extends FieldSpec<'bool'> ? boolean
  : S extends FieldSpec<'date'> ? number | null
  : Buffer | null;

/** One JSON command object of class N. Dates are epoch milliseconds; `key` bytes are raw. */
export type JsonCommandOf<N extends JsonClassName> = {
  /** Short class name; the wire `@class` is JSON_CLASS_PREFIX + this. */
  jsonClass: N;
  comment: string | null;
  /** Sub-type the sender meant; Java overwrites it with the packet's end byte on receipt. */
  requestUserPacket: number;
} & { -readonly [F in keyof (typeof JSON_COMMAND_FIELDS)[N]]: ValueOf<(typeof JSON_COMMAND_FIELDS)[N][F]> };

/** Any JSON command object, discriminated by `jsonClass`. */
export type JsonCommand = { [N in JsonClassName]: JsonCommandOf<N> }[JsonClassName];

function specOf(name: JsonClassName): Record<string, FieldSpec> {
  return JSON_COMMAND_FIELDS[name] as Record<string, FieldSpec>;
}

/** The exact `@class` string for a class. */
export function jsonClassString(name: JsonClassName): string {
  return JSON_CLASS_PREFIX + name;
}

/** The short class name of an `@class` string, or null when it is not one we know. */
export function jsonClassFromString(value: string): JsonClassName | null {
  if (!value.startsWith(JSON_CLASS_PREFIX)) return null;
  const short = value.slice(JSON_CLASS_PREFIX.length);
  return Object.prototype.hasOwnProperty.call(JSON_COMMAND_FIELDS, short) ? (short as JsonClassName) : null;
}

/**
 * A command of class N with every field at its Java default, then `values` applied.
 * Example: `newJsonCommand('StopOrCancelJsonPacket', { requester: 'a', requested: 'b', specialid: 42n })`.
 */
export function newJsonCommand<N extends JsonClassName>(name: N, values: Partial<Omit<JsonCommandOf<N>, 'jsonClass'>> = {}): JsonCommandOf<N> {
  const out: Record<string, unknown> = { jsonClass: name, comment: null, requestUserPacket: 0 };
  for (const [field, spec] of Object.entries(specOf(name))) out[field] = spec.d;
  return withDerivedFields(Object.assign(out, values) as JsonCommand) as JsonCommandOf<N>;
}

function readField(obj: JsonObject, field: string, spec: FieldSpec): unknown {
  switch (spec.t) {
    case 'string': return jsonStr(obj, field, spec.d as string | null);
    case 'int': return jsonInt(obj, field, spec.d as number);
    case 'long': return jsonLong(obj, field, spec.d as bigint);
    case 'bool': return jsonBool(obj, field, spec.d as boolean);
    case 'date': {
      const v = obj[field];
      return v === undefined || v === null ? null : Number(jsonLong(obj, field, 0n));
    }
    case 'bytes': {
      const v = jsonStr(obj, field, null);
      if (v === null) return null;
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v)) throw packetError(`JSON property "${field}" is not Base64`);
      return Buffer.from(v, 'base64');
    }
  }
}

function writeField(value: unknown, spec: FieldSpec): string {
  if (value === null || value === undefined) return 'null';
  switch (spec.t) {
    case 'string': return jsonString(value as string);
    case 'bytes': return jsonString((value as Buffer).toString('base64'));
    case 'int':
    case 'date': return String(Math.trunc(value as number));
    default: return String(value);
  }
}

/**
 * Parses a JSON command. Returns null when the text is not JSON, not an object, or its `@class`
 * is missing or unknown: the Java host then answers `c` CommandNotFound, so this is an answer to
 * give, not a decoding failure. Unknown properties are ignored and missing ones take the defaults.
 */
export function parseJsonCommand(text: string): JsonCommand | null {
  try {
    const obj = parseJsonObject(text);
    const cls = obj['@class'];
    const name = typeof cls === 'string' ? jsonClassFromString(cls) : null;
    if (name === null) return null;
    const out: Record<string, unknown> = {
      jsonClass: name,
      comment: jsonStr(obj, 'comment', null),
      requestUserPacket: jsonInt(obj, 'requestUserPacket', 0),
    };
    for (const [field, spec] of Object.entries(specOf(name))) out[field] = readField(obj, field, spec);
    return withDerivedFields(out as JsonCommand);
  } catch (err) {
    if (err instanceof ProtocolError) return null;
    throw err;
  }
}

/** Output-only properties computed as the Java getters do (TransferRequestJsonPacket.toValidate). */
function withDerivedFields<C extends JsonCommand>(cmd: C): C {
  if (cmd.jsonClass !== 'TransferRequestJsonPacket') return cmd;
  return { ...cmd, toValidate: cmd.validate === 0 };
}

/** Serialises a command exactly as the Java host does: `@class` first, every field, nulls written. */
export function stringifyJsonCommand(cmd: JsonCommand): string {
  const rec = withDerivedFields(cmd) as unknown as Record<string, unknown>;
  const parts = [
    `"@class":${jsonString(jsonClassString(cmd.jsonClass))}`,
    `"comment":${cmd.comment === null ? 'null' : jsonString(cmd.comment)}`,
    `"requestUserPacket":${cmd.requestUserPacket}`,
  ];
  for (const [field, spec] of Object.entries(specOf(cmd.jsonClass))) parts.push(`${jsonString(field)}:${writeField(rec[field], spec)}`);
  return `{${parts.join(',')}}`;
}

/** The answer a Java host gives to an unparseable command (r66-protocol.md §9.14), to send with `c`. */
export function invalidCommandAnswer(subType: number): JsonCommandOf<'JsonPacket'> {
  return newJsonCommand('JsonPacket', { comment: 'Invalid command', requestUserPacket: subType });
}

/** The class a Java host expects for each JsonCommand sub-type (packets §16.2); 13 and 15 take any. */
export const JSON_CLASS_BY_SUBTYPE: Readonly<Partial<Record<number, readonly JsonClassName[]>>> = {
  4: ['RestartTransferJsonPacket'],
  7: ['RequestJsonPacket'],
  8: ['ShutdownRequestJsonPacket'],
  9: ['StopOrCancelJsonPacket'],
  10: ['StopOrCancelJsonPacket'],
  11: ['ConfigExportJsonPacket', 'ConfigExportResponseJsonPacket'],
  12: ['ConfigImportJsonPacket', 'ConfigImportResponseJsonPacket'],
  16: ['LogJsonPacket', 'LogResponseJsonPacket'],
  17: ['LogJsonPacket', 'LogResponseJsonPacket'],
  18: ['InformationJsonPacket'],
  19: ['BandwidthJsonPacket'],
  22: ['BusinessRequestJsonPacket'],
  24: ['ShutdownOrBlockJsonPacket'],
};

/** True when `cmd` is a class the Java host accepts for that sub-type (else the command fails). */
export function jsonClassFitsSubType(cmd: JsonCommand, subType: number): boolean {
  const allowed = JSON_CLASS_BY_SUBTYPE[subType];
  return allowed === undefined || allowed.includes(cmd.jsonClass);
}
