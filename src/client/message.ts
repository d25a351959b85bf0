/**
 * `message`: the connectivity and authentication test (cli.md §5.1, r66-protocol.md §9.11): a Test
 * packet with counter 100 to the partner, answered by Valid sub-type 13 (or a Test ping-pong,
 * which this side continues by the same rule).
 */
import { answerTest, PacketType, TEST_COUNTER_START } from '../protocol/index.js';
import { unexpected } from '../net/commands/unexpected.js';
import type { ConnectionPool } from '../net/pool.js';

export interface MessageResult {
  /** The closing text, e.g. `TestPacket: MSG:hello:101`. */
  answer: string;
}

/** Sends `message` to `partnerId`; throws an R66Error (code BadAuthent, ConnectionImpossible...) on failure. */
export async function sendMessage(pool: ConnectionPool, partnerId: string, message: string, timeoutMs = 30_000): Promise<MessageResult> {
  const { channel } = await pool.openChannel(partnerId);
  try {
    await channel.send({ kind: 'test', header: 'MSG', middle: message, counter: TEST_COUNTER_START });
    for (;;) {
      const answer = await channel.receive(timeoutMs, 'the answer to the message');
      if (answer.kind === 'valid' && answer.subType === PacketType.TEST) return { answer: answer.header };
      if (answer.kind !== 'test') throw unexpected(answer, 'the answer to the message');
      const reply = answerTest(answer);
      await channel.send(reply);
      if (reply.kind === 'valid') return { answer: reply.header };
    }
  } finally {
    channel.close();
  }
}
