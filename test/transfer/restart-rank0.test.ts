// A transfer that failed after the receiver created its work file and before the first block
// (a sender's pre-task failed) is restarted at rank 0: the receiver replaces the old work file
// instead of leaving it behind in its work directory.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { STORAGES } from '../helpers/host-files.js';
import { closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

describe.each(STORAGES)('restart at rank 0 after the work file was created (%s storage)', (storage) => {
  let a: TestHost;
  let b: TestHost;
  beforeEach(async () => {
    ({ a, b } = await makeHostPair({ storage }, { storage }));
  });
  afterEach(() => closeHosts(a, b));

  for (const requested of [true, false]) {
    it(`${requested ? 'requested' : 'requester'} receiver`, async () => {
      const [receiver, sender] = requested ? [b, a] : [a, b];
      const name = requested ? 'send' : 'recv';
      const mode = requested ? TransferMode.SENDMODE : TransferMode.RECVMODE;
      const gate = path.join(sender.home, 'gate.sh');
      await writeFile(gate, '#!/bin/sh\nexit 2\n', { mode: 0o755 });
      await sender.addRule(rule(name, mode, { sPreTasks: [{ type: 'EXEC', path: gate, delay: 10_000 }] }));
      await receiver.addRule(rule(name, mode));
      const content = patternBytes(200_000);
      await sender.files.write(path.join(sender.dirs.out, 'f.bin'), content);
      const first = await a.engine.transfer({ partner: 'hostb', rule: name, file: 'f.bin' });
      expect(first.code).toBe(ErrorCode.ExternalOp);
      await writeFile(gate, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const again = await a.engine.runRecord(first.record);
      expect(again.code, again.message).toBe(ErrorCode.CompleteOk);
      const got = await receiver.files.list(receiver.dirs.in);
      expect(got.length).toBe(1);
      expect((await receiver.files.read(path.join(receiver.dirs.in, got[0] as string))).equals(content)).toBe(true);
      // The failed attempt's empty work file did not stay behind.
      expect(await receiver.files.list(receiver.dirs.work)).toEqual([]);
    });
  }
});
