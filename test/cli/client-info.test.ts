// message, getinfo and business against a real svc-r66server on loopback (cli.md §3.7, §5).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNoStack } from './cli-helpers.js';
import { jsonResult, pairForFile } from './client-harness.js';

const pair = pairForFile({ b: { 'report-1.csv': 'a;b\n1;2\n', 'report-2.csv': 'x\n', 'other.txt': 'other' } });

describe('message (cli.md §5.1)', () => {
  it('answers SUCCESS with the echo of the partner, exit 0', async () => {
    const r = await pair.client(['message', '-to', 'hostb', '-msg', 'hello there']);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code: 0, stdout: 'Test Message       SUCCESS TestPacket: MSG:hello there:101\n' });
  });

  it('prints nothing with -quiet; the raw form takes client.xml first', async () => {
    const r = await pair.client(['Message', join(pair.a.confDir, 'client.xml'), '-to', 'hostb', '-msg', 'm', '-quiet']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
  });

  it('fewer than the 4 arguments (-to HOST -msg TEXT): exit 1', async () => {
    const r = await pair.client(['message', '-to', 'hostb']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('expected -to HOST -msg TEXT');
  });

  it('an unknown partner or an unreachable one: FAILURE, exit 2', async () => {
    const unknown = await pair.client(['message', '-to', 'nobody', '-msg', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toMatch(/^Test Message {7}FAILURE .*NotKnownHost/);
    const down = await pair.client(['message', '-to', 'hostc', '-msg', 'x']);
    expect(down.code).toBe(2);
    expect(down.stdout).toMatch(/^Test Message {7}FAILURE ConnectionImpossible/);
    expect(hasNoStack(down.stderr)).toBe(true);
  });
});

describe('getinfo (cli.md §3.7)', () => {
  it('-list: nb and file1..fileN in JSON', async () => {
    const r = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'report-§.csv', '-list']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('[RequestInformation]  SUCCESS ');
    const res = jsonResult(r.stdout);
    expect(res).toMatchObject({ command: 'RequestInformation', status: 0, remote: 'hostb', nb: 2 });
    expect(Object.keys(res)).not.toContain('ruleid');
    expect([res.file1, res.file2].sort()).toEqual(['/out/report-1.csv', '/out/report-2.csv']);
    expect(res.args).toBe(`${join(pair.a.confDir, 'client.xml')} -to hostb -rule send -file report-§.csv -list `);
  });

  it('-exist is the default request; -property and -csv renderings', async () => {
    const prop = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'other.txt', '-property']);
    expect(prop.code).toBe(0);
    expect(prop.stdout).toContain('\nnb=1\nfile1=true\n');
    const csv = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'missing.txt', '-csv']);
    const [, keys, values] = csv.stdout.split('\n');
    expect(keys?.split(';')).toEqual(['command', 'args', 'status', 'statusTxt', 'remote', 'nb', 'file1']);
    expect(values?.split(';').at(-1)).toBe('false');
  });

  it('-detail gives one MLSx line; -xml rendering replaces markup characters', async () => {
    const r = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'other.txt', '-detail', '-xml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/<nb>1<\/nb><file1> Size=5;Modify=\d{14}\.\d{3};Type=file;Perm=[a-z]+; other\.txt<\/file1>/);
  });

  it('a partner error (unknown rule): FAILURE block, exit 2', async () => {
    const r = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'nosuchrule', '-file', 'x', '-list']);
    expect(r.code).toBe(2);
    expect(jsonResult(r.stdout)).toMatchObject({ status: 2, statusTxt: ' FAILURE ', error: expect.stringContaining('FileNotFound') });
  });

  it('wrong arguments: exit 1', async () => {
    expect((await pair.client(['getinfo', '-to', 'hostb', '-file', 'x'])).code).toBe(1);
    expect((await pair.client(['getinfo', '-to', 'hostb', '-id', '12', '-list'])).code).toBe(1);
    expect((await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-json', '-xml'])).code).toBe(1);
  });
});

describe('business (cli.md §5.2)', () => {
  it('fewer than 4 arguments: what is expected, exit 2 (the original just returns 0)', async () => {
    const r = await pair.client(['business', '-to', 'hostb']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('expected -to HOST -arg ARGUMENT');
  });

  it('missing -arg: exit 2', async () => {
    expect((await pair.client(['business', '-to', 'hostb', '-class', 'x.Y'])).code).toBe(2);
  });

  it('a partner that refuses: FAILURE block, exit 21', async () => {
    const r = await pair.client(['business', '-to', 'hostb', '-arg', 'echo hi']);
    expect(r.code).toBe(21);
    expect(r.stdout.split('\n')[0]).toBe('[BusinessRequest] Business Request in status:       FAILURE ');
    expect(jsonResult(r.stdout)).toMatchObject({ command: 'BusinessRequest', status: 2, remote: 'hostb', error: expect.any(String) });
  });
});
