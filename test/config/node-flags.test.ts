// The names of V8 flags on a node command line (src/config/node-flags.ts).
import { describe, expect, it } from 'vitest';
import { commandLineSets, v8FlagName } from '../../src/config/node-flags.js';

describe('node command-line V8 flags', () => {
  it('names a flag whatever its separators and value', () => {
    expect(v8FlagName('--semi_space_growth_factor=2')).toBe('--semi-space-growth-factor');
    expect(v8FlagName('--no-opt')).toBe('--no-opt');
    expect(v8FlagName('--max-opt=2')).toBe('--max-opt');
  });

  it('tells whether the command line gives one of the flags', () => {
    expect(commandLineSets(['--turbofan'], ['--turbofan', '--opt'])).toBe(true);
    expect(commandLineSets(['--max-old-space-size=512', '--no_turbofan'], ['--no-turbofan'])).toBe(true);
    expect(commandLineSets(['--max-old-space-size=512'], ['--turbofan'])).toBe(false);
    expect(commandLineSets([], ['--turbofan'])).toBe(false);
  });
});
