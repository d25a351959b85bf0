import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/cli-error.js';

const spec = {
  options: [{ name: 'to', value: 'HOST' }, { name: 'id', value: 'ID' }, { name: 'md5' }, { name: 'upgradeDb' }],
  command: 'test',
};

describe('parseArgs (single-dash long options)', () => {
  it('reads values, flags and positionals', () => {
    const p = parseArgs(['-to', 'hostA', 'file.txt', '-md5'], spec);
    expect(p.value('to')).toBe('hostA');
    expect(p.has('md5')).toBe(true);
    expect(p.has('upgradeDb')).toBe(false);
    expect(p.positionals).toEqual(['file.txt']);
  });

  it('lets a value start with a dash (negative transfer ids)', () => {
    expect(parseArgs(['-id', '-42'], spec).value('id')).toBe('-42');
  });

  it('compares names case-insensitively unless told otherwise', () => {
    expect(parseArgs(['-UPGRADEDB'], spec).has('upgradeDb')).toBe(true);
    expect(() => parseArgs(['-UPGRADEDB'], { ...spec, caseSensitive: true })).toThrow(UsageError);
  });

  it('accepts the double-dash form of a name', () => {
    expect(parseArgs(['--to', 'x'], spec).value('to')).toBe('x');
  });

  it('keeps every occurrence and lets the last one win', () => {
    const p = parseArgs(['-to', 'a', '-to', 'b'], spec);
    expect(p.value('to')).toBe('b');
    expect(p.values('to')).toEqual(['a', 'b']);
  });

  it('stops at a bare --', () => {
    const p = parseArgs(['-md5', '--', '-to', 'x'], spec);
    expect(p.has('to')).toBe(false);
    expect(p.rest).toEqual(['-to', 'x']);
  });

  it('names the unknown option and the expected ones', () => {
    expect(() => parseArgs(['-bogus'], spec)).toThrow(/unknown option '-bogus' for test \(expected one of: -to, -id, -md5, -upgradeDb\)/);
  });

  it('can stop at an unknown option instead (masend ... -client)', () => {
    const p = parseArgs(['-to', 'a', '-client', 'x'], { ...spec, onUnknown: 'stop' });
    expect(p.value('to')).toBe('a');
    expect(p.rest).toEqual(['-client', 'x']);
  });

  it('reports a missing value with its placeholder', () => {
    expect(() => parseArgs(['-to'], spec)).toThrow(/option -to for test expects a value \(HOST\)/);
  });

  it('refuses extra positionals when a limit is set', () => {
    expect(() => parseArgs(['a', 'b'], { ...spec, maxPositionals: 1 })).toThrow(/unexpected argument 'b'/);
  });
});
