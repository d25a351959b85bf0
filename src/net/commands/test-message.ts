/**
 * The message / connectivity test (r66-protocol.md §9.11): each side answers a Test with counter
 * c by counter c+1 while it stays <= 100, then the side that reaches 101 ends the test with
 * Valid("TestPacket: <header>:<middle>:<c+1>", "", 13).
 */
import { PacketType, TEST_COUNTER_MAX, type TestPacket } from '../../protocol/index.js';
import type { RequestContext, RequestHandler } from '../handlers.js';
import { unexpected } from './unexpected.js';

export function endOfTestText(t: TestPacket, counter: number): string {
  return `TestPacket: ${t.header}:${t.middle}:${counter}`;
}

export const handleTest: RequestHandler<'test'> = async (ctx: RequestContext, first: TestPacket) => {
  let packet = first;
  ctx.logger.info({ message: first.middle }, 'message received');
  for (;;) {
    const next = packet.counter + 1;
    if (next > TEST_COUNTER_MAX) {
      await ctx.channel.send({ kind: 'valid', header: endOfTestText(packet, next), middle: '', subType: PacketType.TEST });
      return;
    }
    await ctx.channel.send({ ...packet, counter: next });
    const answer = await ctx.channel.receive(ctx.timeoutConMs, 'the next Test packet');
    if (answer.kind === 'valid' && answer.subType === PacketType.TEST) return;
    if (answer.kind !== 'test') throw unexpected(answer, 'a Test packet');
    packet = answer;
  }
};
