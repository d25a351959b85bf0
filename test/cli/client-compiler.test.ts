// Client commands run without V8's optimizing compiler unless asked (decision 0021).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientKeepsOptimizer } from '../../src/cli/r66client/compiler.js';
import { EnvSettingError } from '../../src/config/env-flag.js';
import { ROOT, runCli } from './cli-helpers.js';

/**
 * Runs keepClientOnBaselineCompilers() in a fresh node (V8 flags are the whole process's: never in
 * the test runner), then asks V8 to optimize a hot function; prints whether TurboFan compiled it.
 */
function turbofanUsedAfter(env: NodeJS.ProcessEnv, nodeFlags: string[] = []): boolean {
  const module = join(ROOT, 'dist/cli/r66client/compiler.js');
  const script = `
    const { keepClientOnBaselineCompilers } = await import(${JSON.stringify(module)});
    keepClientOnBaselineCompilers();
    function add(x) { return x + 1; }
    %PrepareFunctionForOptimization(add);
    add(1); add(2);
    %OptimizeFunctionOnNextCall(add);
    add(3);
    // Bit 6 of the status: TurboFan code (V8's runtime-test.cc, OptimizationStatus::kTurboFanned).
    console.log((%GetOptimizationStatus(add) & 64) !== 0 ? 'turbofan' : 'baseline');`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', ...nodeFlags, '--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return out.trim() === 'turbofan';
}

describe('the client compiler setting', () => {
  it('keeps the optimizer only when SVC_R66_CLIENT_OPTIMIZER is 1 or the node command line chose', () => {
    expect(clientKeepsOptimizer({}, [])).toBe(false);
    expect(clientKeepsOptimizer({ SVC_R66_CLIENT_OPTIMIZER: '0' }, [])).toBe(false);
    expect(clientKeepsOptimizer({ SVC_R66_CLIENT_OPTIMIZER: 'yes' }, [])).toBe(true);
    expect(clientKeepsOptimizer({}, ['--turbofan'])).toBe(true);
    expect(clientKeepsOptimizer({}, ['--no_opt'])).toBe(true);
    expect(clientKeepsOptimizer({}, ['--max-opt=2'])).toBe(true);
    expect(clientKeepsOptimizer({}, ['--max-old-space-size=512'])).toBe(false);
    expect(() => clientKeepsOptimizer({ SVC_R66_CLIENT_OPTIMIZER: 'fast' }, [])).toThrow(EnvSettingError);
    expect(() => clientKeepsOptimizer({ SVC_R66_CLIENT_OPTIMIZER: 'fast' }, [])).toThrow(/SVC_R66_CLIENT_OPTIMIZER must be 1 or 0/);
  });

  it('turns TurboFan off in the process by default, and leaves it on when asked', () => {
    expect(turbofanUsedAfter({})).toBe(false);
    expect(turbofanUsedAfter({ SVC_R66_CLIENT_OPTIMIZER: '1' })).toBe(true);
    expect(turbofanUsedAfter({}, ['--turbofan'])).toBe(true);
  });

  it('a bad value stops the client with a clear message and exit code 2, no stack', async () => {
    const r = await runCli('client', ['send', '-to', 'hostb', '-rule', 'send', '-file', 'x'], { SVC_R66_CLIENT_OPTIMIZER: 'fast' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('svc-r66client: SVC_R66_CLIENT_OPTIMIZER must be 1 or 0 (true or false), not "fast"\n');
  });
});
