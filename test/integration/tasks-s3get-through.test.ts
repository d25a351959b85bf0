/**
 * S3GET in the sender's pre-tasks of a send-through rule (mode 5) run without a stream (issue 25
 * item 2, tasks.md S3GET): the requested file does not exist before the pre-tasks, S3GET fetches
 * the object from s3rver, the transfer leaves through mode and sends the object's bytes. Without
 * such a task the file is still looked for after the pre-tasks, and its absence is `f`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { s3Client } from '../../src/tasks/network/s3-client.js';
import { closeHosts, patternBytes, type TestHost } from '../helpers/hosts.js';
import { addRulePair, journalEntries, journalTask, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3rver, type RunningServer } from '../../bench/network/servers.js';

describe('S3GET in a send-through rule', () => {
  let s3: RunningServer & { url: string };
  let direct: S3Client;
  let a: TestHost;
  let b: TestHost;
  let journal: string;

  beforeAll(async () => {
    s3 = await startS3rver();
    direct = s3Client({ url: s3.url, accessKey: S3_ACCESS_KEY, secretKey: S3_SECRET_KEY, bucket: 'outgoing' });
    ({ a, b, journal } = await makeTaskHosts());
    const fetch = task('S3GET', `-URL ${s3.url} -accessKey ${S3_ACCESS_KEY} -secretKey ${S3_SECRET_KEY} -bucketName outgoing -sourceName #ORIGINALFILENAME# -file #OUTPATH#/fetched-#ORIGINALFILENAME#`);
    await addRulePair([a, b], 'from-bucket', journal, () => ({ sPreTasks: [fetch] }), TransferMode.SENDTHROUGHMODE);
    await addRulePair([a, b], 'through-log', journal, () => ({ sPreTasks: [journalTask(journal, 'pre-#TRANSFERID#')] }), TransferMode.SENDTHROUGHMODE);
  });
  afterAll(async () => {
    direct?.destroy();
    await closeHosts(a, b);
    await s3?.stop();
  });

  it('fetches the object before the transfer and sends its bytes, the mode becoming 1', async () => {
    const data = patternBytes(300_001, 9);
    await direct.send(new CreateBucketCommand({ Bucket: 'outgoing' }));
    await direct.send(new PutObjectCommand({ Bucket: 'outgoing', Key: 'object.bin', Body: data }));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'from-bucket', file: 'object.bin' });
    expect(out.code, out.message).toBe(ErrorCode.CompleteOk);
    expect(requester.mode).toBe(TransferMode.SENDMODE);
    expect(requester.filename).toBe(path.join(a.dirs.out, 'fetched-object.bin'));
    expect(requested.updatedInfo).toBe(out.record.updatedInfo);
    const name = (await readdir(b.dirs.in)).find((f) => f.endsWith('fetched-object.bin'));
    expect(name).toBeDefined();
    expect((await readFile(path.join(b.dirs.in, name!))).equals(data)).toBe(true);
  });

  it('without a file after the pre-tasks, fails with f once they ran', async () => {
    const { out } = await transferBetween(a, b, { rule: 'through-log', file: 'never-there.bin' });
    expect(out.code).toBe(ErrorCode.FileNotFound);
    expect(out.message).toContain('never-there.bin');
    expect(await journalEntries(journal)).toContain(`pre-${out.record.specialId}`);
  });
});
