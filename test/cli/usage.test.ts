import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasNoStack, ROOT, runCli, sandbox, type Sandbox } from './cli-helpers.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

describe('usage and instance errors (cli.md §1.1)', () => {
  it.each([[[]], [['help']]])('%j prints the usage and exits 0', async (args) => {
    const r = await runCli('server', args, box.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: svc-r66server [HOSTID] [-home DIR] COMMAND');
    for (const c of ['start', 'stop', 'restart', 'status', 'initdb', 'loadconf', 'loadauth FILE', 'loadrule DIR']) expect(r.stdout).toContain(`  ${c}`);
  });

  it.each(['server', 'client'] as const)('an unknown %s command is an error: exit 1, the usage on stderr', async (side) => {
    const r = await runCli(side, ['frobnicate'], box.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`svc-r66${side}: unknown command 'frobnicate'`);
    expect(r.stderr).toContain(`Usage: svc-r66${side}`);
  });

  it('a CONFDIR without server.xml: "does not exist", exit 2', async () => {
    const r = await runCli('server', ['status'], { ...box.env, CONFDIR: join(box.dir, 'missing') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/instance .*missing.* does not exist/);
    expect(hasNoStack(r.stderr)).toBe(true);
  });

  it('extra arguments of start/stop/status are refused with exit 1', async () => {
    const r = await runCli('server', ['status', '-x'], box.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown option '-x' for status");
  });

  it('-home without a value is refused with exit 1', async () => {
    const r = await runCli('server', ['status', '-home'], box.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('-home expects a value');
  });
});

describe('launchers in bin/', () => {
  it.each(['svc-r66server', 'svc-r66client', 'svc-password'])('%s without dist/ says to build, exit 1, no stack trace', (name) => {
    // A checkout right after `npm ci`: the launcher is there, the compiled code not yet.
    const dir = join(box.dir, 'checkout');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    copyFileSync(join(ROOT, 'bin', `${name}.js`), join(dir, 'bin', `${name}.js`));
    const r = spawnSync(process.execPath, [join(dir, 'bin', `${name}.js`), 'help'], { encoding: 'utf8', env: box.env });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`${name}: not built yet: run 'npm run build' in ${dir}/\n`);
  });
});
