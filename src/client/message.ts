/**
 * `message`: the connectivity and authentication test (cli.md §5.1, r66-protocol.md §9.11): a Test
 * packet with counter 100 to the partner, answered by Valid sub-type 13 (or a Test ping-pong).
 */
import { PacketType, TEST_COUNTER_MAX, TEST_COUNTER_START } from '../protocol/index.js';
import { endOfTestText } from '../net/commands/test-message.js';
import { unexpected } from '../net/commands/unexpected.js';
import type { ConnectionPool } from '../net/pool.js';

export interface MessageResult {
  /** The partner's closing text, e.g. `TestPacket: MSG:hello:101`. */
  answer: string;
}

/** Sends `message` to `partnerId`; throws an R66Error (code BadAuthent, ConnectionImpossible...) on failure. */
export async function sendMessage(pool: ConnectionPool, partnerId: string, message: string, timeoutMs = 30_000): Promise<MessageResult> {
  const { channel } = await pool.openChannel(partnerId);
  try {
    let packet = { kind: 'test' as const, header: 'MSG', middle: message, counter: TEST_COUNTER_START };
    await channel.send(packet);
    for (;;) {
      const answer = await channel.receive(timeoutMs, 'the answer to the message');
      if (answer.kind === 'valid' && answer.subType === PacketType.TEST) return { answer: answer.header };
      if (answer.kind !== 'test') throw unexpected(answer, 'the answer to the message');
      const next = answer.counter + 1;
      if (next > TEST_COUNTER_MAX) {
        const header = endOfTestText(answer, next);
        await channel.send({ kind: 'valid', header, middle: '', subType: PacketType.TEST });
        return { answer: header };
      }
      packet = { ...answer, counter: next };
      await channel.send(packet);
    }
  } finally {
    channel.close();
  }
}
