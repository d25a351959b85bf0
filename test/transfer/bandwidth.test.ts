// Bandwidth acceptance (bandwidth.md §5, §6.1): a 100 MiB transfer limited to 10 MiB/s by the
// session limit runs within 10% of the limit, measured over the whole transfer from the engine's
// own start and end events of that transfer.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import type { TransferRecord } from '../../src/model/transfer.js';
import type { TransferOutcome } from '../../src/transfer/index.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;
const SIZE = 100 * MiB;

describe('bandwidth shaping over a whole transfer', () => {
  let a: TestHost;
  let b: TestHost;

  beforeEach(async () => {
    // The global limit stays above the session one: a global 0 would force the session limit to 0
    // (unlimited) as the original does (bandwidth.md §1 trap).
    ({ a, b } = await makeHostPair({ limits: { sessionLimit: LIMIT, globalLimit: 10 * LIMIT } }));
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
  });
  afterEach(() => closeHosts(a, b));

  it('100 MiB at a 10 MiB/s session limit: the measured rate is within 10% of the limit', async () => {
    await writeFile(path.join(a.dirs.out, 'big.bin'), patternBytes(SIZE, 7));
    let started = 0;
    let ended = 0;
    a.engine.on('start', (r: TransferRecord) => void (r.requested === 'hostb' && (started = performance.now())));
    a.engine.on('end', (o: TransferOutcome) => void (o.record.requested === 'hostb' && (ended = performance.now())));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'big.bin' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(started).toBeGreaterThan(0);
    const seconds = (ended - started) / 1000;
    const rate = SIZE / seconds;
    expect(rate, `${(rate / MiB).toFixed(2)} MiB/s over ${seconds.toFixed(2)} s`).toBeGreaterThan(LIMIT * 0.9);
    expect(rate, `${(rate / MiB).toFixed(2)} MiB/s over ${seconds.toFixed(2)} s`).toBeLessThan(LIMIT * 1.1);
  }, 60_000);
});
