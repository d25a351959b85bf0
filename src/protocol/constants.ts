/**
 * Wire constants of the R66 protocol (spec r66-protocol.md conventions, packets §1).
 */

/** Local channel id meaning "not known yet / connection level": int32 0x80000000. */
export const NOCHANNEL = -0x80000000;

/** The "no transfer id" value: int64 0x8000000000000000. */
export const ILLEGALVALUE = -(2n ** 63n);

/** Packet type codes (packets §1). The same numbers serve as Valid/JsonCommand sub-types. */
export const PacketType = {
  AUTHENT: 1,
  STARTUP: 2,
  DATA: 3,
  VALID: 4,
  ERROR: 5,
  CONNECTERROR: 6,
  REQUEST: 7,
  SHUTDOWN: 8,
  STOP: 9,
  CANCEL: 10,
  CONFEXPORT: 11,
  CONFIMPORT: 12,
  TEST: 13,
  ENDTRANSFER: 14,
  REQUESTUSER: 15,
  LOG: 16,
  LOGPURGE: 17,
  INFORMATION: 18,
  BANDWIDTH: 19,
  ENDREQUEST: 20,
  KEEPALIVE: 21,
  BUSINESSREQUEST: 22,
  NOOP: 23,
  BLOCKREQUEST: 24,
  JSONREQUEST: 25,
} as const;

/** One of the packet type codes. */
export type PacketTypeCode = (typeof PacketType)[keyof typeof PacketType];

/** Codes that exist only as sub-types; a Java host rejects them as a top-level packet. */
export const SUBTYPE_ONLY_CODES: ReadonlySet<number> = new Set([9, 10, 11, 12, 15, 16, 17, 19]);

/** `way` byte: 0 = request / ask, 1 = answer / validated (packets §1). */
export const Way = { ASK: 0, ANSWER: 1, REFUSED: 2 } as const;

/** Error packet end values (packets §6). Java always sends FORWARDCLOSECODE. */
export const ErrorAction = { IGNORECODE: 0, CLOSECODE: 1, FORWARDCODE: 2, FORWARDCLOSECODE: 3 } as const;

/** Network frame header: int32 length, int32 dstId, int32 srcId, byte code. */
export const FRAME_HEADER_SIZE = 13;
/** Local packet envelope header: int32 L1, int32 M, int32 E, byte type. */
export const ENVELOPE_HEADER_SIZE = 13;
/** `L1` = this + header length (the trap of r66-protocol.md §4). */
export const ENVELOPE_L1_BIAS = 9;
/** Smallest legal frameLength: dst + src + code (r66-protocol.md §2). */
export const MIN_FRAME_LENGTH = 9;

/**
 * Default cap on a declared frameLength. Java has none; we refuse anything above a 16 MiB block
 * plus 64 KiB of headers (r66-protocol.md §2 suggestion). Configurable per splitter.
 */
export const DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024 + 64 * 1024;

/** Information request kinds (packets §12, §17). */
export const InformationKind = {
  ASKEXIST: 0,
  ASKMLSDETAIL: 1,
  ASKLIST: 2,
  ASKMLSLIST: 3,
  REQUEST_CHECK: -1,
} as const;

/** The Java client starts a Test ping-pong with this counter; never above (packets §10). */
export const TEST_COUNTER_START = 100;
/** A Test whose counter exceeds this goes out as type 4 from a Java encoder (packets §10 trap). */
export const TEST_COUNTER_MAX = 100;
