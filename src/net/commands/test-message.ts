/**
 * The message / connectivity test (r66-protocol.md §9.11), requested side: answer each Test with
 * the protocol's rule (counter+1, or the end-of-test Valid sub-type 13 past 100) until the test ends.
 */
import { answerTest, PacketType, type TestPacket } from '../../protocol/index.js';
import type { RequestContext, RequestHandler } from '../handlers.js';
import { unexpected } from './unexpected.js';

export const handleTest: RequestHandler<'test'> = async (ctx: RequestContext, first: TestPacket) => {
  ctx.logger.info({ message: first.middle }, 'message received');
  let packet = first;
  for (;;) {
    const reply = answerTest(packet);
    await ctx.channel.send(reply);
    if (reply.kind === 'valid') return;
    const next = await ctx.channel.receive(ctx.timeoutConMs, 'the next Test packet');
    if (next.kind === 'valid' && next.subType === PacketType.TEST) return;
    if (next.kind !== 'test') throw unexpected(next, 'a Test packet');
    packet = next;
  }
};
