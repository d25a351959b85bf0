/**
 * The five S3 tasks against s3rver (an S3-compatible server from npm, run on loopback): bucket
 * creation, multipart upload, tags set and read (s3rver implements object tagging), the tag map
 * replacing the transfer map, the switch out of send-through mode, S3PUTR66DELETE's result, and
 * the failures (wrong credentials, missing object, bad arguments) as code E.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectTaggingCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransferMode } from '../../../src/model/rule.js';
import { parseS3Options, S3ArgumentError } from '../../../src/tasks/network/s3-options.js';
import { s3Client } from '../../../src/tasks/network/s3-client.js';
import { makeContext, makeHome, makeTransfer } from '../helpers.js';
import { runOne } from '../run-one.js';
import { refusingTagging, S3_ACCESS_KEY, S3_SECRET_KEY, startS3rver, type RunningServer } from '../../../bench/network/servers.js';

describe('S3 options', () => {
  const base = ['-URL', 'http://h:9000', '-accessKey', 'a', '-secretKey', 'TopSecret', '-bucketName', 'MyBucket'];
  it('parses the options per task, bucket lower-cased, tags', () => {
    expect(parseS3Options('S3GET', [...base, '-sourceName', 'k', '-file', 'f', '-getTags', '*'])).toMatchObject({ bucket: 'mybucket', sourceName: 'k', file: 'f', getTags: null });
    expect(parseS3Options('S3GETDELETE', [...base, '-sourceName', 'k', '-file', 'f', '-getTags', 'a,b']).getTags).toEqual(['a', 'b']);
    expect(parseS3Options('S3PUT', [...base, '-targetName', 't', '-setTags', 'a:1,b:2']).setTags).toEqual([['a', '1'], ['b', '2']]);
    expect(parseS3Options('S3DELETE', [...base, '-sourceName', 'k']).sourceName).toBe('k');
  });
  it.each([
    ['S3GET', [...base, '-sourceName', 'k'], /-file is required/],
    ['S3DELETE', base, /-sourceName is required/],
    ['S3PUT', [...base, '-targetName', 't', '-setTags', 'a:1,b'], /key:value/],
    ['S3GET', [...base, '-sourceName', 'k', '-file', 'f', '-getTags', 'a,,b'], /empty/],
    ['S3PUT', ['-URL', 'not a url', '-accessKey', 'a', '-secretKey', 's', '-bucketName', 'b', '-targetName', 't'], /-URL/],
    ['S3PUT', [...base, '-targetName', 't', '-oops', 'x'], /unknown word/],
  ] as const)('%s refuses %j', (type, words, message) => {
    expect(() => parseS3Options(type, words)).toThrow(S3ArgumentError);
    expect(() => parseS3Options(type, words)).toThrow(message);
    try {
      parseS3Options(type, words);
    } catch (err) {
      expect((err as Error).message).not.toContain('TopSecret');
    }
  });
});

describe('S3 tasks against s3rver', () => {
  let s3: RunningServer & { url: string };
  let direct: S3Client;
  const home = makeHome();
  const creds = (): string => `-URL ${s3.url} -accessKey ${S3_ACCESS_KEY} -secretKey ${S3_SECRET_KEY}`;

  beforeAll(async () => {
    s3 = await startS3rver();
    direct = s3Client({ url: s3.url, accessKey: S3_ACCESS_KEY, secretKey: S3_SECRET_KEY, bucket: 'x' });
  });
  afterAll(async () => {
    direct?.destroy();
    await s3?.stop();
    home.cleanup();
  });

  it('S3PUT creates the missing bucket, uploads in parts and sets the tags; S3GET reads them back into the transfer map', async () => {
    const local = join(home.home, 'out', 'big.bin');
    const content = Buffer.alloc(20 * 1024 * 1024 + 123);
    for (let i = 0; i < content.length; i += 4096) content[i] = i % 251;
    writeFileSync(local, content);
    // Pipeline B: %s is the first word of the transfer information, #RULE# the rule.
    const put = await runOne('S3PUT', `${creds()} -bucketName NewBucket -targetName dir/#TRUEFILENAME# -setTags owner:svc,lot:%s,rule:#RULE#`, makeContext(home.home, { currentFile: local }));
    expect(put).toMatchObject({ kind: 'success' });
    const tags = await direct.send(new GetObjectTaggingCommand({ Bucket: 'newbucket', Key: 'dir/big.bin' }));
    expect(tags.TagSet).toEqual(expect.arrayContaining([{ Key: 'owner', Value: 'svc' }, { Key: 'lot', Value: 'lot42' }, { Key: 'rule', Value: 'rule1' }]));
    expect(existsSync(local)).toBe(true);

    const ctx = makeContext(home.home, { transfer: makeTransfer({ mode: TransferMode.SENDTHROUGHMODE, transferInfo: 'kept text {"ORIGINALSIZE":11,"follow":5}' }) });
    const dest = join(home.home, 'work', 'fetched.bin');
    const get = await runOne('S3GET', `${creds()} -bucketName newbucket -sourceName dir/big.bin -file ${dest} -getTags owner`, ctx);
    expect(get).toMatchObject({ kind: 'success' });
    expect(readFileSync(dest).equals(content)).toBe(true);
    expect(ctx.currentFile).toBe(dest);
    expect(ctx.transfer).toMatchObject({ filename: dest, isMoved: true, mode: TransferMode.SENDMODE, transferInfo: 'kept text {"owner":"svc"}' });
  });

  it('S3GETDELETE removes the object; S3DELETE too; a missing object fails with E', async () => {
    const local = join(home.home, 'out', 'small.txt');
    writeFileSync(local, 'small\n');
    expect(await runOne('S3PUT', `${creds()} -bucketName bucket-one -targetName s1`, makeContext(home.home, { currentFile: local }))).toMatchObject({ kind: 'success' });
    expect(await runOne('S3PUT', `${creds()} -bucketName bucket-one -targetName s2`, makeContext(home.home, { currentFile: local }))).toMatchObject({ kind: 'success' });
    const ctx = makeContext(home.home);
    const dest = join(home.home, 'in', 's1.txt');
    expect(await runOne('S3GETDELETE', `${creds()} -bucketName bucket-one -sourceName s1 -file ${dest}`, ctx)).toMatchObject({ kind: 'success' });
    expect(readFileSync(dest, 'utf8')).toBe('small\n');
    await expect(direct.send(new HeadObjectCommand({ Bucket: 'bucket-one', Key: 's1' }))).rejects.toThrow();
    expect(await runOne('S3DELETE', `${creds()} -bucketName bucket-one -sourceName s2`, makeContext(home.home))).toMatchObject({ kind: 'success' });
    await expect(direct.send(new HeadObjectCommand({ Bucket: 'bucket-one', Key: 's2' }))).rejects.toThrow();
    const missing = await runOne('S3GET', `${creds()} -bucketName bucket-one -sourceName nothing -file ${join(home.home, 'in', 'n')}`, makeContext(home.home));
    expect(missing).toMatchObject({ kind: 'failure', code: { char: 'E' } });
    expect(missing.kind === 'failure' && missing.message).toMatch(/NoSuchKey|404/);
  });

  it('S3PUTR66DELETE uploads then deletes the local file, the DELETE result being its own', async () => {
    const local = join(home.home, 'out', 'gone.txt');
    writeFileSync(local, 'bye\n');
    const ctx = makeContext(home.home, { currentFile: local });
    expect(await runOne('S3PUTR66DELETE', `${creds()} -bucketName bucket-two -targetName gone.txt`, ctx)).toMatchObject({ kind: 'success' });
    expect(existsSync(local)).toBe(false);
    expect((await direct.send(new HeadObjectCommand({ Bucket: 'bucket-two', Key: 'gone.txt' }))).ContentLength).toBe(4);
  });

  it('a refused tagging deletes the uploaded object again (server without tagging, at the request level)', async () => {
    const local = join(home.home, 'out', 'tagged.txt');
    writeFileSync(local, 'tags\n');
    const proxy = await refusingTagging(s3.port);
    try {
      const res = await runOne('S3PUT', `-URL ${proxy.url} -accessKey ${S3_ACCESS_KEY} -secretKey ${S3_SECRET_KEY} -bucketName bucket-three -targetName t.txt -setTags k:v`, makeContext(home.home, { currentFile: local }));
      expect(res).toMatchObject({ kind: 'failure', code: { char: 'E' } });
      expect(res.kind === 'failure' && res.message).toContain('object deleted again');
      expect(res.kind === 'failure' && res.message).toContain('501');
    } finally {
      await proxy.stop();
    }
    await expect(direct.send(new HeadObjectCommand({ Bucket: 'bucket-three', Key: 't.txt' }))).rejects.toThrow();
  });

  // s3rver checks the access key but not SigV4 signatures: a wrong key id is what it can refuse.
  it('wrong credentials and bad arguments fail with E, the secret key in no text', async () => {
    const local = join(home.home, 'out', 'c.txt');
    writeFileSync(local, 'c\n');
    const ctx = makeContext(home.home, { currentFile: local });
    const res = await runOne('S3PUT', `-URL ${s3.url} -accessKey NOT-A-KEY -secretKey Wrong-Secret-99 -bucketName bucket-four -targetName c.txt`, ctx);
    expect(res).toMatchObject({ kind: 'failure', code: { char: 'E' } });
    expect(res.kind === 'failure' && res.message).toMatch(/InvalidAccessKeyId|403/);
    expect(`${res.kind === 'failure' ? res.message : ''}${ctx.logger.text()}`).not.toContain('Wrong-Secret-99');
    const bad = await runOne('S3DELETE', `-URL ${s3.url} -accessKey a -secretKey Wrong-Secret-99 -bucketName bucket-four`, makeContext(home.home));
    expect(bad).toMatchObject({ kind: 'failure', code: { char: 'E' } });
    expect(bad.kind === 'failure' && bad.message).not.toContain('Wrong-Secret-99');
    expect(await runOne('S3PUT', `${creds()} -bucketName bucket-four -targetName x`, makeContext(home.home))).toMatchObject({ kind: 'failure', code: { char: 'E' } });
  });
});
