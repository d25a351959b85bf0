/**
 * Local channel ids (r66-protocol.md §3.1): unique within the process, never NOCHANNEL
 * (0x80000000) and never 0. A Java host looks frames up by destination id alone in a process-wide
 * table, so ids are never reused while the counter has not wrapped round the whole int32 range.
 */
import { randomInt } from 'node:crypto';

import { NOCHANNEL } from '../protocol/index.js';

let next = randomInt(1, 0x7fffffff);

/** The next free id (wrapping through the negative range, skipping NOCHANNEL and 0). */
export function allocateChannelId(): number {
  for (;;) {
    const id = next;
    next = next === 0x7fffffff ? -0x80000000 : next + 1;
    if (id !== NOCHANNEL && id !== 0) return id;
  }
}
