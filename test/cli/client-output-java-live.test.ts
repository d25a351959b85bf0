// Our real svc-r66client against a real svc-r66server, on the commands of the Java 3.6.2 capture
// (test/fixtures/captures/cli-output-java-3.6.2.md, a byte copy of the spec's capture): every block
// of standard output must equal the captured one once the run's own values (ids, follow ids, delays,
// the configuration file's path) are normalised the same way on both sides (issue 22 item 5).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNoStack, ROOT, sqliteRows } from './cli-helpers.js';
import { pairForFile } from './client-harness.js';

const CAPTURE = readFileSync(join(ROOT, 'test/fixtures/captures/cli-output-java-3.6.2.md'), 'utf8');

/** The fenced block under the capture's heading `## <heading>`. */
function captured(heading: string): string {
  const at = CAPTURE.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`no section "${heading}" in the capture`);
  const m = /\n```\n([\s\S]*?)```\n/.exec(CAPTURE.slice(at));
  if (m === null) throw new Error(`no output block in section "${heading}"`);
  return m[1] as string;
}

/** The capture's hello.txt: 31 bytes, as its originalSize says. */
const HELLO = 'hello from hosta, 31 bytes long';

const pair = pairForFile({ a: { 'hello.txt': HELLO }, b: { 'remote1.txt': 'on hostb' } });

/** The run's own values replaced by the same markers on both sides. */
function normalise(text: string, configFile: string): string {
  return text
    .split(configFile).join('client/conf/client.xml')
    .replace(/"specialid":-?\d+/g, '"specialid":ID')
    .replace(/\\"follow\\":-?\d+/g, '\\"follow\\":FOLLOW')
    .replace(/"delay":\d+/g, '"delay":MS');
}

async function run(args: string[]): Promise<{ code: number | null; stdout: string; raw: string; stderr: string }> {
  const r = await pair.client(args);
  expect(hasNoStack(r.stderr), r.stderr).toBe(true);
  return { code: r.code, stdout: normalise(r.stdout, join(pair.a.confDir, 'client.xml')), raw: r.stdout, stderr: r.stderr };
}

const CONF = 'client/conf/client.xml';

describe('svc-r66client prints what the Java 3.6.2 client prints (captures/cli-output-java-3.6.2.md)', () => {
  it('send, success: DirectTransfer status line and JSON object', async () => {
    expect(HELLO).toHaveLength(31);
    const r = await run(['send', '-to', 'hostb', '-file', 'hello.txt', '-rule', 'send', '-info', 'out1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(normalise(captured('DirectTransfer, success'), CONF));
  });

  it('send, failure (no such file on the client): transfer fields, then status, statusTxt and error; exit 27 (FileNotFound)', async () => {
    const r = await run(['send', '-to', 'hostb', '-file', 'nosuch.txt', '-rule', 'send', '-info', 'out1']);
    expect(r.stdout).toBe(normalise(captured('DirectTransfer, failure (the file does not exist on the client)'), CONF));
    expect(r.code).toBe(27);
    // The printed id is a real transfer: its row in the client's database ended in error with f.
    const id = /"specialid":(-?\d+)/.exec(r.raw)?.[1];
    const rows = await sqliteRows<{ infostatus: string; updatedinfo: number; transferinfo: string }>(pair.a.sqliteFile, `SELECT infostatus, updatedinfo, transferinfo FROM runner WHERE specialid = ${id}`);
    expect(rows).toEqual([{ infostatus: 'f', updatedinfo: 4, transferinfo: '{}' }]);
    // The detail the fixed error text leaves out is in the log.
    expect(r.stderr).toContain('nosuch.txt');
  });

  it('getinfo -exist: RequestInformation " SUCCESS ", nb and file1', async () => {
    const r = await run(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'remote1.txt', '-exist']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(normalise(captured('RequestInformation -exist'), CONF));
  });

  it('msend of one file: the MultipleDirectTransfer summary, then the Unique MultipleDirectTransfer block', async () => {
    const r = await run(['msend', '-to', 'hostb', '-file', 'hello.txt', '-rule', 'send', '-info', 'm']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(normalise(captured('MultipleDirectTransfer (msend) of one file'), CONF));
  });

  it('message: Test Message       SUCCESS and the partner\'s echo', async () => {
    const r = await run(['message', '-to', 'hostb', '-msg', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(captured('Message'));
  });
});
