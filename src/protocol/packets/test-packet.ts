import { PacketType, TEST_COUNTER_MAX } from '../constants.js';
import { fromUtf8, int32Bytes, readInt32, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** Test (type 13, packets §10): message ping-pong. */
export interface TestPacket {
  kind: 'test';
  /** `MSG` from the Java client. */
  header: string;
  /** The message text. */
  middle: string;
  /** Starts at TEST_COUNTER_START (100); must stay <= 100 on the wire. */
  counter: number;
}

/** Java reads 4 end bytes unconditionally. */
export function decodeTest(p: PacketParts): TestPacket {
  return { kind: 'test', header: fromUtf8(p.header), middle: fromUtf8(p.middle), counter: readInt32(p.end, 0, 'Test counter') };
}

/**
 * Refuses a counter above 100: a Java encoder would emit such a packet with type code 4 and the
 * Java receiver would ignore it (packets §10 trap). The end of a test is a Valid sub-type 13.
 */
export function encodeTest(t: TestPacket): PacketParts {
  if (t.counter > TEST_COUNTER_MAX) throw new RangeError(`a Test counter above ${TEST_COUNTER_MAX} cannot be sent; end the test with Valid sub-type 13`);
  return { type: PacketType.TEST, header: utf8(t.header), middle: utf8(t.middle), end: int32Bytes(t.counter) };
}
