// docs/rest.md's worked examples (Basic, HMAC, signed body, transfer ids, v1 signature), run as
// written against a home made by `svc-r66server init` and started in the background.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, readPid } from '../../src/fs/pid-file.js';
import { freePort } from '../../src/server/ports.js';
import { runCli, sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { commandDir, runScript, shellBlocks, type ScriptResult } from '../docs/doc-scripts.js';

let box: Sandbox;
let home: string;
let result: ScriptResult;

beforeAll(async () => {
  box = sandbox();
  home = join(box.dir, 'hosta');
  const port = await freePort();
  const ssl = await freePort();
  const rest = await freePort();
  expect((await runCli('server', ['init', '-home', home, '-hostid', 'hosta', '-port', String(port), '-sslport', String(ssl), '-restport', String(rest)], box.env)).code).toBe(0);
  expect((await runCli('server', ['-home', home, 'start'], { ...box.env, SVC_SERVICE: '1' })).code).toBe(0);
  const env = { ...box.env, SVC_HOME: home, REST: `http://127.0.0.1:${rest}`, PATH: `${commandDir(box.dir)}:${process.env.PATH ?? ''}` };
  result = await runScript(shellBlocks('rest.md').join('\n'), env, box.dir);
}, 120_000);

afterAll(() => {
  const pid = readPid(join(home, 'r66server.pid'));
  if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  box.cleanup();
});

describe('docs/rest.md worked examples', () => {
  it('every block runs (curl -f fails on an HTTP error)', () => {
    expect(shellBlocks('rest.md').length).toBeGreaterThanOrEqual(6);
    expect(result.code, result.output).toBe(0);
  });

  it('Basic, HMAC and v1 list the hosts; the signed POST created one; a bare id gets a clear 404', () => {
    const read = (f: string) => readFileSync(join(box.dir, f), 'utf8');
    expect(read('basic.json')).toContain('"name":"hosta"');
    expect(read('hmac.json')).toBe(read('basic.json'));
    expect(read('created.json')).toContain('"name":"hostc"');
    expect(result.output).toMatch(/^404$/m);
    expect(read('bare.txt')).toContain('expected <id>_<requested>');
    expect(read('v1.json')).toContain('"HOSTID":"hosta"');
  });
});
