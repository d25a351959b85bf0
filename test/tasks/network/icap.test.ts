/**
 * The ICAP task and `svc-r66client icaptest` against a real c-icap with virus_scan and clamav
 * (icap.md, cli.md §3.12), plus two tiny local servers for what c-icap never does (closing in the
 * middle of an answer, talking nonsense).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskRegistry, checkRuleTasks } from '../../../src/tasks/index.js';
import { IcapArgumentError, parseIcapOptions } from '../../../src/tasks/network/icap-options.js';
import { eicarBytes, icapScan } from '../../../src/tasks/network/icap-scan.js';
import { formEncode, respmodHeader } from '../../../src/tasks/network/icap-client.js';
import { TransferMode, type Rule } from '../../../src/model/rule.js';
import type { TransferSubmission } from '../../../src/tasks/context.js';
import { makeContext, makeHome } from '../helpers.js';
import { runOne } from '../run-one.js';
import { execBusiness } from './business.js';
import { freePort, icapAvailable, startIcap, type RunningServer } from '../../../bench/network/servers.js';

const run = promisify(execFile);
const CLIENT = join(process.cwd(), 'bin', 'svc-r66client.js');

/** Runs `svc-r66client icaptest ...` from dist/; returns exit code and output. */
async function icaptest(args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLIENT, 'icaptest', ...args], { timeout: 30_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

const quiet = (): void => undefined;

describe('ICAP options (icap.md §1)', () => {
  it('parses every option, models, defaults and the words after --', () => {
    const o = parseIcapOptions(['-file', 'a b', '-to', 'av', '-model', 'ICAP_CLAMAV', '-previewSize', '0', '-blockSize', '100', '-receiveSize', '200', '-maxSize', '300',
      '-timeout', '500', '-keyPreview', 'K', '-stringPreview', 'S', '-key204', 'K2', '-string204', 'S2', '-key200', 'K3', '-string200', 'S3', '-stringHttp', 'H',
      '-logger', 'debug', '-errorMove', '/q', '-ignoreNetworkError', '-ignoreTooBigFileError', '--', '-to', 'x']);
    expect(o).toMatchObject({ file: 'a b', host: 'av', port: 1344, service: 'srv_clamav', previewSize: 0, blockSize: 100, receiveSize: 200, maxSize: 300, timeoutMs: 500,
      previewCheck: { key: 'K', text: 'S' }, check204: { key: 'K2', text: 'S2' }, check200: { key: 'K3', text: 'S3' }, stringHttp: 'H', logger: 'DEBUG', errorMove: '/q',
      ignoreNetworkError: true, ignoreTooBigFileError: true, transferArgs: ['-to', 'x'], hasSeparator: true });
    const d = parseIcapOptions(['-file', 'f', '-to', 'h', '-service', 'svc', '-port', '0', '-logger', 'LOUD', 'unknown', '-port', 'x']);
    expect(d).toMatchObject({ port: 1344, previewSize: null, blockSize: 8192, receiveSize: 65536, maxSize: 2147483647, timeoutMs: 36_000_000, badLogger: 'LOUD', errorDelete: false });
    expect(parseIcapOptions(['-file', 'f', '-to', 'h', '-model', 'DEFAULT_MODEL']).service).toBe('avscan');
    expect(parseIcapOptions(['-file', 'f', '-to', 'h', '-model', 'ICAP_VIRUS_SCAN', '-key204', 'X']).check204).toBeUndefined();
  });

  it.each([
    [['-to', 'h', '-service', 's'], /-file/],
    [['-file', 'f', '-service', 's'], /-to/],
    [['-file', 'f', '-to', 'h'], /-service/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-model', 'ICAP_AVSCAN'], /together/],
    [['-file', 'f', '-to', 'h', '-model', 'NOPE'], /unknown/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-blockSize', '99'], /-blockSize: 99 is out of range; expected an integer from 100 to 16777216 \(bytes\)/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-timeout', 'ten'], /integer/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-port', '-1'], /-port: -1 is out of range; expected an integer from 0 to 65535/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-timeout', '1e23'], /-timeout: 1e23 is not an integer; expected an integer from 100 to 2147483647 \(ms\)/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-errorDelete', '-sendOnError'], /together/],
    [['-file', 'f', '-to', 'h', '-service', 's', '-errorMove', '/q', '-errorDelete'], /together/],
  ])('refuses %j', (words, message) => {
    expect(() => parseIcapOptions(words)).toThrow(IcapArgumentError);
    expect(() => parseIcapOptions(words)).toThrow(message);
  });

  it('writes the RESPMOD header of icap.md §2.2', () => {
    const o = parseIcapOptions(['-file', '/data/in/a b.pdf', '-to', 'av1', '-service', 'avscan']);
    const h = respmodHeader(o, 4096, 5000);
    expect(h).toContain('GET /%2Fdata%2Fin%2Fa+b.pdf HTTP/1.1\r\n');
    expect(h).toContain('Encapsulated: req-hdr=0, res-hdr=56, res-body=125\r\n');
    expect(h).toContain('Preview: 4096\r\n');
    expect(formEncode("x*y!~'")).toBe('x*y%21%7E%27');
  });
});

describe.skipIf(!icapAvailable())('ICAP against c-icap + clamav', () => {
  let icap: RunningServer;
  const home = makeHome();
  const clean = join(home.home, 'in', 'clean.txt');
  const big = join(home.home, 'in', 'big.bin');
  const infected = (name: string): string => {
    const p = join(home.home, 'in', name);
    writeFileSync(p, Buffer.concat([Buffer.alloc(200_000, 'a'), eicarBytes(), Buffer.from('\n')]));
    return p;
  };

  beforeAll(async () => {
    icap = await startIcap();
    writeFileSync(clean, 'a clean file\n');
    writeFileSync(big, Buffer.alloc(300_000, 'b'));
  }, 30_000);
  afterAll(async () => {
    await icap?.stop();
    home.cleanup();
  });

  it('a clean file passes (OPTIONS negotiated preview, 204), as the task and with icaptest', async () => {
    const ctx = makeContext(home.home, { currentFile: clean });
    const res = await runOne('ICAP', `-file #TRUEFULLPATH# -to 127.0.0.1 -port ${icap.port} -model ICAP_CLAMAV`, ctx);
    expect(res).toMatchObject({ kind: 'success' });
    expect(existsSync(clean)).toBe(true);
    const cli = await icaptest(['-file', clean, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-logger', 'DEBUG']);
    expect(cli.code).toBe(0);
    expect(cli.err).toContain('OPTIONS answer: ICAP/1.0 200');
  });

  it('a file larger than the preview goes through 100 Continue in blocks, with or without a given preview size', async () => {
    const log: string[] = [];
    const r1 = await icapScan(parseIcapOptions(['-file', big, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-blockSize', '1000']), (_l, m) => log.push(m));
    expect(r1.status).toBe(0);
    expect(log.join('\n')).toContain('300000 bytes sent');
    const r2 = await icapScan(parseIcapOptions(['-file', big, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-previewSize', '0']), quiet);
    expect(r2.status).toBe(0);
  });

  it('EICARTEST is caught (exit 4), with the 200 checks able to accept it', async () => {
    const cli = await icaptest(['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(icap.port), '-model', 'ICAP_AVSCAN']);
    expect(cli.code).toBe(4);
    expect(cli.out).toContain('Svc-Eicar-Test');
    const base = ['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan'];
    expect((await icapScan(parseIcapOptions([...base, '-key200', 'X-Infection-Found', '-string200', 'Svc-Eicar']), quiet)).status).toBe(0);
    expect((await icapScan(parseIcapOptions([...base, '-stringHttp', 'HTTP/1.']), quiet)).status).toBe(0);
    expect((await icapScan(parseIcapOptions([...base, '-stringHttp', 'never there']), quiet)).status).toBe(4);
  });

  it('an infected file is deleted (-errorDelete) or moved (-errorMove); the task fails', async () => {
    const a = infected('a.bin');
    const ctx = makeContext(home.home, { currentFile: a });
    const res = await runOne('ICAP', `-file #TRUEFULLPATH# -to 127.0.0.1 -port ${icap.port} -service avscan -errorDelete`, ctx);
    expect(res).toMatchObject({ kind: 'failure', code: { char: 'E' } });
    expect(res.kind === 'failure' && res.message).toContain('deleted');
    expect(existsSync(a)).toBe(false);

    const b = infected('b.bin');
    const quarantine = join(home.home, 'quarantine');
    mkdirSync(quarantine);
    const cli = await icaptest(['-file', b, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-errorMove', quarantine]);
    expect(cli.code).toBe(4);
    expect(existsSync(b)).toBe(false);
    expect(existsSync(join(quarantine, 'b.bin'))).toBe(true);

    const c = infected('c.bin');
    const moved = await icapScan(parseIcapOptions(['-file', c, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-errorMove', join(quarantine, 'renamed.bin')]), quiet);
    expect(moved.status).toBe(4);
    expect(existsSync(join(quarantine, 'renamed.bin'))).toBe(true);

    const d = infected('d.bin');
    const failed = await icapScan(parseIcapOptions(['-file', d, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-errorMove', join(home.home, 'no', 'such', 'dir')]), quiet);
    expect(failed.status).toBe(5);
    expect(existsSync(d)).toBe(true);
  });

  it('-sendOnError submits the TRANSFER of the words after -- and the task still fails', async () => {
    const e = infected('e.bin');
    const submitted: TransferSubmission[] = [];
    const ctx = makeContext(home.home, { currentFile: e, engine: { transfers: { submit: async (r) => { submitted.push(r); return 77n; } } } });
    const res = await runOne('ICAP', `-file #TRUEFULLPATH# -to 127.0.0.1 -port ${icap.port} -model ICAP_AVSCAN -sendOnError -- -file #TRUEFULLPATH# -to quarantineHost -rule quarantine -copyinfo -info FILE INFECTED`, ctx);
    expect(res.kind).toBe('failure');
    expect(res.kind === 'failure' && res.message).toContain('resend submitted as transfer 77');
    expect(submitted[0]).toMatchObject({ to: 'quarantineHost', file: e, rule: 'quarantine', info: 'lot42 extra FILE INFECTED' });
  });

  it('runs in a business request: clean passes, EICARTEST fails the request', async () => {
    expect(await execBusiness(home.home, `ICAP -file ${clean} -to 127.0.0.1 -port ${icap.port} -model ICAP_AVSCAN`)).toMatchObject({ ok: true });
    const infected = await execBusiness(home.home, `ICAP -file EICARTEST -to 127.0.0.1 -port ${icap.port} -model ICAP_AVSCAN`);
    expect(infected.ok).toBe(false);
    expect(infected.result).toContain('Svc-Eicar-Test');
  });

  it('a file above -maxSize is refused (status 1) or accepted unscanned with -ignoreTooBigFileError', async () => {
    const base = ['-file', big, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan', '-maxSize', '1000'];
    const cli = await icaptest(base);
    expect(cli.code).toBe(1);
    expect(cli.out).toContain('larger than -maxSize 1000');
    expect((await icapScan(parseIcapOptions([...base, '-ignoreTooBigFileError']), quiet)).status).toBe(0);
  });

  it('an unknown service is a protocol error (2); a missing file is an argument error (1)', async () => {
    expect((await icapScan(parseIcapOptions(['-file', clean, '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'nosuchservice']), quiet)).status).toBe(2);
    expect((await icapScan(parseIcapOptions(['-file', join(home.home, 'nope'), '-to', '127.0.0.1', '-port', String(icap.port), '-service', 'avscan']), quiet)).status).toBe(1);
    expect((await icapTestParseError()).code).toBe(1);
  });
});

async function icapTestParseError(): Promise<{ code: number; out: string }> {
  const r = await icaptest(['-file', 'x', '-to', 'h', '-service', 's', '-model', 'ICAP_AVSCAN']);
  expect(r.out).toContain('usage: svc-r66client');
  return r;
}

describe('ICAP network failures', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  /** A server that answers every request with `answer` and then closes. */
  async function answering(answer: string): Promise<number> {
    const srv = createServer((sock) => {
      sock.once('data', () => sock.end(answer));
      sock.on('error', () => undefined);
    });
    servers.push(srv);
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const addr = srv.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  }

  it('a server closing in the middle of its answer gives exit 3', async () => {
    const port = await answering('ICAP/1.0 200 OK\r\nPrev');
    const cli = await icaptest(['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(port), '-service', 'avscan']);
    expect(cli.code).toBe(3);
    expect(cli.out).toContain('in the middle of its answer');
  });

  it('connection refused is 3, or 0 with -ignoreNetworkError; a read timeout is 3', async () => {
    const port = await freePort();
    const base = ['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(port), '-service', 'avscan'];
    expect((await icapScan(parseIcapOptions(base), quiet)).status).toBe(3);
    expect((await icapScan(parseIcapOptions([...base, '-ignoreNetworkError']), quiet)).status).toBe(0);
    const silent = createServer(() => undefined);
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const addr = silent.address();
    const sp = typeof addr === 'object' && addr ? addr.port : 0;
    const t = await icapScan(parseIcapOptions(['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(sp), '-service', 'avscan', '-timeout', '300']), quiet);
    expect(t).toMatchObject({ status: 3 });
    expect(t.message).toContain('timeout');
  });

  it('-logger keeps the lines of its level and above; an unknown level is reported and ignored', async () => {
    const port = await freePort();
    const lines: string[] = [];
    await icapScan(parseIcapOptions(['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(port), '-service', 'avscan', '-logger', 'ERROR']), (l, m) => lines.push(`${l} ${m}`));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.startsWith('error '))).toBe(true);
    const all: string[] = [];
    await icapScan(parseIcapOptions(['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(port), '-service', 'avscan', '-logger', 'chatty']), (l, m) => all.push(`${l} ${m}`));
    expect(all.some((l) => l.startsWith('warn -logger CHATTY is not a level'))).toBe(true);
    expect(all.some((l) => l.startsWith('info scanning'))).toBe(true);
  });

  it('an OPTIONS answer without Preview, a bad status line and a header above -receiveSize are protocol errors (2)', async () => {
    const scan = async (answer: string, extra: string[] = []): Promise<number> =>
      (await icapScan(parseIcapOptions(['-file', 'EICARTEST', '-to', '127.0.0.1', '-port', String(await answering(answer)), '-service', 'avscan', ...extra]), quiet)).status;
    expect(await scan('ICAP/1.0 200 OK\r\nISTag: x\r\n\r\n')).toBe(2);
    expect(await scan('garbage\r\n\r\n')).toBe(2);
    expect(await scan(`ICAP/1.0 200 OK\r\nX: ${'y'.repeat(300)}\r\n\r\n`, ['-receiveSize', '100'])).toBe(2);
    expect(await scan('ICAP/1.0 200 OK\r\nPreview: 10\r\nX-Mark: abc\r\n\r\n', ['-keyPreview', 'X-Mark', '-stringPreview', 'zzz'])).toBe(2);
  });
});

describe('ICAP in rules', () => {
  it('a rule with an ICAP task loads; fewer than 6 words fail the task', async () => {
    const rule = { idRule: 'r', mode: TransferMode.SENDMODE, rPreTasks: [], rPostTasks: [{ type: 'icap', path: '-file x', delay: 0 }], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [] } as unknown as Rule;
    expect(checkRuleTasks(rule).rule.rPostTasks[0]?.type).toBe('ICAP');
    const home = makeHome();
    const res = await runOne('ICAP', '-file x -to', makeContext(home.home), 0, createTaskRegistry());
    expect(res).toMatchObject({ kind: 'failure' });
    home.cleanup();
  });
});
