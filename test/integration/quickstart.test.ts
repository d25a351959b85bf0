// docs/quickstart.md, run as written: two homes, partners, a file sent, REST, history, stop.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, readPid } from '../../src/fs/pid-file.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { commandDir, runScript, shellBlocks, type ScriptResult } from '../docs/doc-scripts.js';

let box: Sandbox;
let demo: string;
let result: ScriptResult;

beforeAll(async () => {
  box = sandbox();
  demo = join(box.dir, 'demo');
  const env = { ...box.env, DEMO: demo, PATH: `${commandDir(box.dir)}:${process.env.PATH ?? ''}` };
  result = await runScript(shellBlocks('quickstart.md').join('\n'), env, box.dir);
}, 120_000);

afterAll(() => {
  for (const host of ['hosta', 'hostb']) {
    const pid = readPid(join(demo, host, 'r66server.pid'));
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  box.cleanup();
});

describe('docs/quickstart.md', () => {
  it('runs from the first command to the last', () => {
    expect(shellBlocks('quickstart.md').length).toBeGreaterThanOrEqual(6);
    expect(result.output).not.toMatch(/unexpected error|\n\s+at /);
    expect(result.code, result.output).toBe(0);
  });

  it('sends the file to hostb, shows it in REST and in the exported history, stops both servers', () => {
    expect(result.output).toContain('Status of hosta R66 Server... running');
    expect(result.output).toContain('[DirectTransfer] Transfer in status:');
    const received = readdirSync(join(demo, 'hostb', 'data', 'in'));
    expect(received.some((f) => f.endsWith('hello.txt'))).toBe(true);
    expect(readFileSync(join(demo, 'transfers.json'), 'utf8')).toContain('"requested":"hostb"');
    expect(readdirSync(join(demo, 'hosta', 'data', 'arch')).some((f) => /^hosta_\d+_runners\.xml$/.test(f))).toBe(true);
    expect(result.output).toContain('Stoping hostb R66 Server... done');
    expect(existsSync(join(demo, 'hosta', 'r66server.pid'))).toBe(false);
  });
});
