/**
 * EXECJAVA and the plug-in mechanism through real transfers: the built-in plug-ins, the example
 * plug-in of docs/plugins loaded through `extendedtaskfactories` (its EXECJAVA class and its new
 * task type STAMP), an unknown class, a failing status, the time limit and #NOWAIT#.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { createTaskRegistry, loadExtendTaskFactories, readInfoMap, type TaskRegistry } from '../../src/tasks/index.js';
import { closeHosts, type TestHost } from '../helpers/hosts.js';
import { addRulePair, at, journalEntries, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';
import { waitFor } from '../helpers/wait.js';

const EXAMPLE_PLUGIN = path.resolve('docs/plugins/stamp-plugin.mjs');

/** A second plug-in for the time limit, #NOWAIT# and failing statuses. */
const TEST_PLUGIN = `
import { writeFile } from 'node:fs/promises';
export const execJava = {
  'com.test.Status': () => ({ run: (call) => Number(call.args.split(' ')[0]) }),
  'com.test.Gate': () => ({
    async run(call) {
      const [gate, marker] = call.args.split(' ');
      const { existsSync } = await import('node:fs');
      while (!existsSync(gate)) {
        if (call.signal.aborted) return -1;
        await new Promise((r) => setTimeout(r, 20));
      }
      await writeFile(marker, 'done');
      return 0;
    },
  }),
};
`;

const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('EXECJAVA and plug-ins through real transfers', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;
  let registry: TaskRegistry;

  beforeEach(async () => {
    // hostb loads its plug-ins as a server does at start: from the extendedtaskfactories list.
    registry = createTaskRegistry();
    ({ a, b, journal } = await makeTaskHosts({}, { tasks: registry }));
    await writeFile(path.join(b.dirs.conf, 'test-plugin.mjs'), TEST_PLUGIN);
    await loadExtendTaskFactories(registry, `org.waarp.openr66.s3.taskfactory.S3TaskFactory, ${EXAMPLE_PLUGIN}, ./test-plugin.mjs`, b.dirs.conf, quiet);
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'payload');
  });
  afterEach(() => closeHosts(a, b));

  it('AddDigestJavaTask and AddUuidJavaTask change the sender record; TestExecJavaTask succeeds', async () => {
    await addRulePair([a, b], 'java', journal, (h) => (h === a ? {
      sPreTasks: [
        task('EXECJAVA', 'org.waarp.openr66.context.task.javatask.AddDigestJavaTask -digest SHA256 -format -sha256:#DIGEST#', 0),
        task('EXECJAVA', 'org.svc.openr66.context.task.javatask.AddUuidJavaTask -format +uuid:#UUID#', 0),
        task('EXECJAVA', 'org.waarp.openr66.context.task.test.TestExecJavaTask hello', 0),
      ],
    } : {}));
    const { out, requester } = await transferBetween(a, b, { rule: 'java', file: 'f.txt', fileInfo: 'lot42' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const sha = createHash('sha256').update('payload').digest('hex');
    const map = readInfoMap(requester.transferInfo);
    expect(map.digest).toBe(sha);
    expect(typeof map.uuid).toBe('string');
    expect(requester.fileInfo).toMatch(new RegExp(`^sha256:${sha} lot42.* uuid:${String(map.uuid)}$`));
  });

  it('the example plug-in of docs/plugins: its EXECJAVA class and its STAMP task type act on the received file', async () => {
    await addRulePair([a, b], 'stamp', journal, (h) => (h === b ? {
      rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#'), task('EXECJAVA', 'com.example.svc.StampTask received from #REMOTEHOST#', 10_000), task('STAMP', 'stamped by type')],
    } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'stamp', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const lines = (await readFile(path.join(b.dirs.in, 'f.txt.stamp'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z received from hosta$/);
    expect(lines[1]).toMatch(/ stamped by type$/);
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
  });

  it('an unknown class fails with c; a plug-in status other than 0/1 fails with E; 1 is a success', async () => {
    await addRulePair([a, b], 'warn', journal, (h) => (h === b ? { rPostTasks: [task('EXECJAVA', 'com.test.Status 1', 0)] } : {}));
    expect((await transferBetween(a, b, { rule: 'warn', file: 'f.txt' })).out.code).toBe(ErrorCode.CompleteOk);

    await addRulePair([a, b], 'unknown', journal, (h) => (h === b ? { rPostTasks: [task('EXECJAVA', 'com.nowhere.Missing arg', 0)] } : {}));
    const unknown = await transferBetween(a, b, { rule: 'unknown', file: 'f.txt' });
    expect(unknown.out.code).toBe(ErrorCode.CommandNotFound);
    expect(unknown.requested.infoStatus).toBe(ErrorCode.CommandNotFound);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-c', 'serror-hosta-c']);

    await addRulePair([a, b], 'bad', journal, (h) => (h === b ? { rPostTasks: [task('EXECJAVA', 'com.test.Status 7', 0)] } : {}));
    const bad = await transferBetween(a, b, { rule: 'bad', file: 'f.txt' });
    expect(bad.out.code).toBe(ErrorCode.ExternalOp);
    expect(bad.requested.updatedInfo).toBe(UpdatedInfo.INERROR);
  });

  it('delay > 100 is a time limit (failure); #NOWAIT# reports success while the plug-in still runs', async () => {
    const gate = at(b, 'gate');
    const marker = at(b, 'marker');
    await addRulePair([a, b], 'slow', journal, (h) => (h === b ? { rPostTasks: [task('EXECJAVA', `com.test.Gate ${gate} ${marker}`, 300)] } : {}));
    const slow = await transferBetween(a, b, { rule: 'slow', file: 'f.txt' });
    expect(slow.out.code).toBe(ErrorCode.ExternalOp);
    expect(slow.requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(existsSync(marker)).toBe(false);

    await addRulePair([a, b], 'nowait', journal, (h) => (h === b ? { rPostTasks: [task('EXECJAVA', `#NOWAIT# com.test.Gate ${gate} ${marker}`, 0)] } : {}));
    const nowait = await transferBetween(a, b, { rule: 'nowait', file: 'f.txt' });
    expect(nowait.out.code).toBe(ErrorCode.CompleteOk);
    expect(existsSync(marker)).toBe(false);
    await writeFile(gate, '');
    await waitFor(() => existsSync(marker), { what: 'the #NOWAIT# plug-in to finish' });
  });
});
