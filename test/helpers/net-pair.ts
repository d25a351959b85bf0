// The in-process pair of R66 hosts (test/net/harness.ts makePair: a listening hostb, a client hosta
// that know each other) for a whole suite, with hostb's rule `send` (its default directories).
import { afterAll, beforeAll } from 'vitest';
import { makePair, rule, type TestHost } from '../net/harness.js';

export interface NetPair {
  a: TestHost;
  b: TestHost;
}

/**
 * Registers, in the calling suite, a beforeAll that starts the pair, gives hostb the rule `send`
 * and runs `setup` (more rules, files in hostb's home), and an afterAll that closes both hosts.
 * The returned object is filled in once the pair has started.
 */
export function netPairForSuite(setup: (pair: NetPair) => Promise<void> = async () => undefined): NetPair {
  const pair = {} as NetPair;
  beforeAll(async () => {
    const { a, b } = await makePair();
    Object.assign(pair, { a, b });
    b.rules.set('send', rule('send'));
    await setup(pair);
  });
  afterAll(async () => {
    await pair.a?.close();
    await pair.b?.close();
  });
  return pair;
}
