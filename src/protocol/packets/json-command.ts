import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, readByte, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';
import { parseJsonCommand, stringifyJsonCommand, type JsonCommand } from '../json-commands.js';

/** JsonCommand (type 25, packets §13.6): a JSON command object, its result and its sub-type. */
export interface JsonCommandPacket {
  kind: 'jsonCommand';
  /**
   * The parsed command, or null when the header is not a known JSON command (answer it with
   * invalidCommandAnswer and `c`). When encoding, a non-null command is serialised and wins over `json`.
   */
  command: JsonCommand | null;
  /** The header text as received; used for encoding only when `command` is null. */
  json?: string;
  /** Empty in a request; the ErrorCode character in an answer. */
  result: string;
  /** Sub-type (`typeValid`): the dispatch key, whatever the object's requestUserPacket says. */
  subType: number;
}

/** Java reads one end byte unconditionally. */
export function decodeJsonCommand(p: PacketParts): JsonCommandPacket {
  const subType = readByte(p.end, 0, 'JsonCommand sub-type');
  const json = fromUtf8(p.header);
  return { kind: 'jsonCommand', command: parseJsonCommand(json), json, result: fromUtf8(p.middle), subType };
}

export function encodeJsonCommand(j: JsonCommandPacket): PacketParts {
  const header = j.command !== null ? stringifyJsonCommand(j.command) : j.json ?? '';
  return { type: PacketType.JSONREQUEST, header: utf8(header), middle: utf8(j.result), end: byteBytes(j.subType) };
}
