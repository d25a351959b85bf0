// The accepted range of every number svc-r66 reads: configuration elements (server.xml,
// client.xml, the limit file, snmpconfig.xml, authent.xml, rule files, svc-r66's own sections) and
// numeric command options. One table, read by SectionReader (values.ts) and by the CLI option
// helper (src/cli/number-option.ts), listed in docs/security.md#bounds and checked table-driven by
// test/config/ranges.test.ts. The original's normalisations (runlimit 1 -> 2, connlimit < 100 ->
// off...) still apply to values inside the range; a value outside it stops the load or the command
// with the element's (option's) name and this range (decision 0039).

/** How the text is read: Java int (32-bit), long (64-bit), double, or a transfer id (bigint). */
export type NumberKind = 'int' | 'long' | 'double' | 'id';

export interface NumberRange {
  kind: NumberKind;
  min: number | bigint;
  max: number | bigint;
  /** What the number counts (`ms`, `bytes`, `TCP port`...), shown in messages. */
  unit?: string;
  /** What special values mean, or what the original does inside the range (docs only). */
  note?: string;
}

const INT_MAX = 2 ** 31 - 1;
const DAY_MS = 86_400_000;
/** setTimeout's largest delay (2^31-1 ms, 24.8 days): a longer one fires at once. */
const TIMER_MAX_MS = INT_MAX;
/** 1 PiB/s: far above any link, far below the precision limit of a JS number. */
const BANDWIDTH_MAX = 2 ** 50;
/** 16 MiB: the protocol's largest frame (src/protocol/constants.ts) holds one such block. */
const BLOCK_MAX = 16 * 1024 * 1024;

const int = (min: number, max: number, unit?: string, note?: string): NumberRange => ({ kind: 'int', min, max, unit, note });
const long = (min: number, max: number, unit?: string, note?: string): NumberRange => ({ kind: 'long', min, max, unit, note });
const double = (min: number, max: number, unit?: string, note?: string): NumberRange => ({ kind: 'double', min, max, unit, note });

export const PORT = int(0, 65535, 'TCP port');
/** A listener the original turns off with 0 or a negative value. */
export const PORT_OR_OFF = int(-1, 65535, 'TCP port', '0 or -1: off');
const BLOCK = int(100, BLOCK_MAX, 'bytes');

/**
 * Configuration elements, keyed `<section>/<element>` where section is the element's parent
 * (`limit/blocksize`, `spooled/elapse`, `task/delay`, `entry/port`). An element read as a number
 * without an entry here gets the full range of its Java type (still refused beyond it).
 */
export const CONFIG_RANGES = {
  // server.xml <server>
  'server/lexecport': int(1, 65535, 'TCP port'),
  'server/httpmodel': int(0, 1, undefined, '0 classic, 1 responsive'),
  'server/pastlimit': long(0, 3650 * DAY_MS, 'ms'),
  'server/minimaldelay': long(0, DAY_MS, 'ms'),
  'server/multiplemonitors': int(0, 1000, 'servers', '0 and 1: a single server'),
  'server/clustertakeover': int(1000, DAY_MS, 'ms'),
  // <network>
  'network/serverport': PORT,
  'network/serversslport': PORT,
  'network/serverhttpport': PORT_OR_OFF,
  'network/serverhttpsport': PORT_OR_OFF,
  // <rest>
  'rest/restport': PORT_OR_OFF,
  'rest/serverrestport': PORT_OR_OFF,
  'rest/resttimelimit': long(-1, 365 * DAY_MS, 'ms', '0 or -1: restclockskew applies'),
  // <limit> (server.xml, client.xml, the limit file)
  'limit/serverthread': int(0, 1024, 'threads', '0: the runtime chooses'),
  'limit/clientthread': int(0, 50000, 'threads'),
  'limit/memorylimit': long(0, 2 ** 40, 'bytes', 'used up to 2147483647'),
  'limit/sessionlimit': long(0, BANDWIDTH_MAX, 'B/s', '0: unlimited'),
  'limit/globallimit': long(0, BANDWIDTH_MAX, 'B/s', '0: unlimited'),
  'limit/delaylimit': long(0, DAY_MS, 'ms'),
  'limit/runlimit': int(0, 50000, 'transfers', '0 and 1 become 2'),
  'limit/delaycommand': long(0, DAY_MS, 'ms', 'below 100 becomes 100'),
  'limit/delayretry': long(0, DAY_MS, 'ms', 'below 1000 becomes 1000'),
  'limit/timeoutcon': long(10, DAY_MS, 'ms'),
  'limit/blocksize': BLOCK,
  'limit/gaprestart': int(0, 1_000_000, 'blocks', '0 becomes 1'),
  'limit/cpulimit': double(0, 1, 'ratio', 'above 0.99: no limit'),
  'limit/connlimit': int(0, 1_000_000, 'connections', 'below 100: no limit'),
  'limit/lowcpulimit': double(0, 1, 'ratio', '0: half of highcpulimit'),
  'limit/highcpulimit': double(0, 1, 'ratio', 'below 0.1: throttling off'),
  'limit/percentdecrease': double(0, 100, 'ratio or %', '0: 0.01; 1 or more: a percentage'),
  'limit/delaythrottle': long(0, DAY_MS, 'ms', 'below 100 becomes 100'),
  'limit/limitlowbandwidth': long(0, BANDWIDTH_MAX, 'B/s', 'below 1048576 becomes 1048576'),
  'limit/digest': int(0, 7, 'algorithm', '0 CRC32, 1 ADLER32, 2 MD5, 3 MD2, 4 SHA-1, 5 SHA-256, 6 SHA-384, 7 SHA-512'),
  'limit/usethrift': PORT_OR_OFF,
  // <pushMonitor>
  'pushMonitor/delay': int(-1, DAY_MS, 'ms', '-1: 1000; below 500 becomes 500'),
  // <security> (ours)
  'security/maxconnections': int(1, 100_000, 'connections'),
  'security/maxconnectionsperaddress': int(1, 100_000, 'connections'),
  'security/handshakeframebytes': int(1024, BLOCK_MAX, 'bytes'),
  'security/handshaketimeout': int(100, 3_600_000, 'ms'),
  'security/maxunauthenticated': int(1, 100_000, 'connections'),
  'security/httpmaxconnections': int(1, 100_000, 'connections'),
  'security/httpmaxconnectionsperaddress': int(1, 100_000, 'connections'),
  'security/httpidletimeout': int(100, 3_600_000, 'ms'),
  'security/httprequesttimeout': int(1000, 3_600_000, 'ms'),
  'security/maxtotalconnections': int(1, 1_000_000, 'connections'),
  'security/maxeventstreamsperclient': int(1, 1000, 'streams'),
  'security/bufferedbytes': long(1024 * 1024, 2 ** 34, 'bytes'),
  'security/warninterval': int(1000, DAY_MS, 'ms'),
  'security/restbodylimit': int(1024, 2 ** 30, 'bytes'),
  'security/restimportbodylimit': int(1024, 2 ** 30, 'bytes'),
  'security/restmaxauthfailures': int(1, 1_000_000, 'failures'),
  'security/restlockout': int(1000, 7 * DAY_MS, 'ms'),
  'security/restclockskew': int(1000, DAY_MS, 'ms'),
  // <monitoring> (ours)
  'monitoring/metricsport': int(0, 65535, 'TCP port', '0: off'),
  // client.xml <spooleddaemon><spooled>
  'spooled/elapse': long(0, DAY_MS, 'ms', 'below 100 becomes 1000'),
  'spooled/limitParallel': int(0, 100_000, 'transfers', '0: unlimited'),
  'spooled/block': BLOCK,
  'spooled/elapseWaarp': long(0, DAY_MS, 'ms', '0: after each scan'),
  'spooled/minimalSize': long(0, Number.MAX_SAFE_INTEGER, 'bytes'),
  // snmpconfig.xml
  'config/nbthread': int(0, 1024, 'threads', '0: 4'),
  'config/trapinformlevel': int(0, 5, 'level'),
  'target/timeout': int(0, 3_600_000, 'ms', 'below 100 becomes 100'),
  'target/retries': int(0, 100, 'retries', '0 becomes 1'),
  // authent.xml
  'entry/port': int(-1, 65535, 'TCP port', 'negative: a client that never listens'),
  // logback-server.xml / logback-client.xml rolling appenders (maxFileSize and totalSizeCap after their unit)
  'rollingPolicy/maxHistory': int(0, 100_000, 'files'),
  'rollingPolicy/maxFileSize': long(1, BANDWIDTH_MAX, 'bytes'),
  // rule files
  'rule/mode': int(1, 8, 'transfer mode'),
  'task/delay': long(0, TIMER_MAX_MS, 'ms'),
  'task/rank': int(0, INT_MAX, 'position'),
} as const satisfies Record<string, NumberRange>;

/** Transfer ids and the id sequence: signed 64-bit; Long.MIN_VALUE means "no id" (database.md §7). */
export const TRANSFER_ID_RANGE: NumberRange = { kind: 'id', min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n, unit: 'transfer id' };

/**
 * Numeric command options, keyed `<command> -<option>` (`send` stands for send, asend, msend,
 * masend and transfer). Options that mirror an element take its range.
 */
export const OPTION_RANGES = {
  'send -block': BLOCK,
  'send -delay +MS': long(0, 3650 * DAY_MS, 'ms from now'),
  'send -delay EPOCHMS': long(0, 253_402_300_799_999, 'ms since 1970', 'at most 9999-12-31'),
  'send -id': TRANSFER_ID_RANGE,
  'log-export -startid': TRANSFER_ID_RANGE,
  'log-export -stopid': TRANSFER_ID_RANGE,
  'initdb -minimalSeq': TRANSFER_ID_RANGE,
  'spool -elapse': CONFIG_RANGES['spooled/elapse'],
  'spool -limitParallel': CONFIG_RANGES['spooled/limitParallel'],
  'spool -block': BLOCK,
  'spool -elapseSvc': CONFIG_RANGES['spooled/elapseWaarp'],
  'spool -minimalSize': CONFIG_RANGES['spooled/minimalSize'],
  'init -port': int(1, 65535, 'TCP port'),
  'init -sslport': int(0, 65535, 'TCP port', '0: none'),
  'init -restport': int(0, 65535, 'TCP port', '0: none'),
  'init -httpport': int(0, 65535, 'TCP port', '0: none'),
  'init -httpsport': int(0, 65535, 'TCP port', '0: none'),
  // icaptest and the ICAP task's arguments (icap.md §1)
  'icaptest -port': int(0, 65535, 'TCP port', '0: 1344'),
  'icaptest -previewSize': int(0, BLOCK_MAX, 'bytes'),
  'icaptest -blockSize': BLOCK,
  'icaptest -receiveSize': BLOCK,
  'icaptest -maxSize': long(100, Number.MAX_SAFE_INTEGER, 'bytes'),
  'icaptest -timeout': long(100, TIMER_MAX_MS, 'ms'),
  // The RESCHEDULE task's arguments (tasks.md); the TRANSFER task's -block, -delay, -id are send's.
  'RESCHEDULE -delay': long(1, 3650 * DAY_MS, 'ms after the failure'),
  'RESCHEDULE -count': int(0, 2_147_483_647, 'retries'),
} as const satisfies Record<string, NumberRange>;

export type ConfigRangeKey = keyof typeof CONFIG_RANGES;
export type OptionRangeKey = keyof typeof OPTION_RANGES;

/** The whole range of a Java type: what an element without an entry is held to. */
export const TYPE_RANGES: Readonly<Record<Exclude<NumberKind, 'id'>, NumberRange>> = {
  int: int(-(2 ** 31), INT_MAX),
  long: { kind: 'long', min: -(2n ** 63n), max: 2n ** 63n - 1n },
  double: double(-Number.MAX_VALUE, Number.MAX_VALUE),
};

/** The range of element `key` (`limit/blocksize`), or its type's whole range. */
export function configRange(key: string, kind: Exclude<NumberKind, 'id'>): NumberRange {
  return (CONFIG_RANGES as Record<string, NumberRange>)[key] ?? TYPE_RANGES[kind];
}

/** `an integer from 100 to 16777216 (bytes)`: the expectation in every refusal. */
export function describeRange(r: NumberRange): string {
  const what = r.kind === 'double' ? 'a number' : 'an integer';
  return `${what} from ${r.min} to ${r.max}${r.unit !== undefined ? ` (${r.unit})` : ''}`;
}

/** Result of reading a text against a range. */
export type RangeCheck =
  | { ok: true; value: number | bigint }
  /** Not a number at all (`1GB`, `SHA512`): the original takes the default. */
  | { ok: false; notNumber: true; message: string }
  /** A number, but of the wrong kind or outside the range. */
  | { ok: false; notNumber: false; message: string };

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[dDfF]?$/;

/**
 * Reads `text` as `range.kind` (Java syntax: optional sign and digits; a double may have a
 * fraction, an exponent and a d/f suffix) and checks it against the range. The message says what
 * was wrong and what is expected, without the element's name (the caller adds it).
 */
export function checkRange(text: string, range: NumberRange): RangeCheck {
  const expected = describeRange(range);
  if (range.kind !== 'double') {
    if (!INTEGER.test(text)) {
      if (DECIMAL.test(text)) return { ok: false, notNumber: false, message: `${text} is not an integer; expected ${expected}` };
      return { ok: false, notNumber: true, message: `"${text}" is not a number; expected ${expected}` };
    }
    const n = BigInt(text);
    if (n < BigInt(range.min) || n > BigInt(range.max)) return { ok: false, notNumber: false, message: `${text} is out of range; expected ${expected}` };
    return { ok: true, value: range.kind === 'id' ? n : Number(n) };
  }
  const m = DECIMAL.exec(text);
  if (m === null) return { ok: false, notNumber: true, message: `"${text}" is not a number; expected ${expected}` };
  const n = Number(text.replace(/[dDfF]$/, ''));
  if (!Number.isFinite(n) || n < Number(range.min) || n > Number(range.max)) return { ok: false, notNumber: false, message: `${text} is out of range; expected ${expected}` };
  return { ok: true, value: n };
}
