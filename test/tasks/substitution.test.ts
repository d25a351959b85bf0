import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../src/model/error-code.js';
import { splitCommandLine, CommandLineError } from '../../src/tasks/command-line.js';
import { JavaFormatError, javaFormat } from '../../src/tasks/java-format.js';
import { javaSplitOnSpace, normalizeSpaces, pipelineA, pipelineB, replaceVariables } from '../../src/tasks/substitution.js';
import { variableValues } from '../../src/tasks/variables.js';
import { makeContext, makeHome } from './helpers.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

describe('substitution variables (tasks.md §6)', () => {
  function ctxWithFile() {
    const file = join(env.home, 'work', '42_123_orig.txt.r66');
    writeFileSync(file, 'hello world');
    return { ctx: makeContext(env.home, { currentFile: file }), file };
  }
  const cases: Array<[string, (h: string, f: string) => string]> = [
    ['#TRUEFULLPATH#', (_h, f) => f],
    ['#TRUEFILENAME#', () => '42_123_orig.txt'],
    ['#ORIGINALFULLPATH#', () => 'sub/dir\\orig.txt'],
    ['#ORIGINALFILENAME#', () => 'orig.txt'],
    ['#FILESIZE#', () => '11'],
    ['#RULE#', () => 'rule1'],
    ['#DATE#', () => '20240315'],
    ['#HOUR#', () => '142233'],
    ['#REMOTEHOST#', () => 'hostB'],
    ['#LOCALHOST#', () => 'hostA'],
    ['#REMOTEHOSTADDR#', () => '/127.0.0.1:40000'],
    ['#LOCALHOSTADDR#', () => '/127.0.0.1:6666'],
    ['#REMOTEHOSTIP#', () => '/127.0.0.1:40000'],
    ['#LOCALHOSTIP#', () => '/127.0.0.1:6666'],
    ['#TRANSFERID#', () => '1234567890123456789'],
    ['#REQUESTERHOST#', () => 'hostA'],
    ['#REQUESTEDHOST#', () => 'hostB'],
    ['#FULLTRANSFERID#', () => '1234567890123456789_hostA_hostB'],
    ['#RANKTRANSFER#', () => '7'],
    ['#BLOCKSIZE#', () => '65536'],
    ['#INPATH#', (h) => join(h, 'in')],
    ['#OUTPATH#', (h) => join(h, 'out')],
    ['#WORKPATH#', (h) => join(h, 'work')],
    ['#ARCHPATH#', (h) => join(h, 'arch')],
    ['#HOMEPATH#', (h) => h],
    ['#ERRORMSG#', () => 'NoError'],
    ['#ERRORCODE#', () => '-'],
    ['#ERRORSTRCODE#', () => 'Unknown'],
  ];
  for (const [variable, expected] of cases) {
    it(`replaces ${variable}`, () => {
      const { ctx, file } = ctxWithFile();
      expect(pipelineA(`x ${variable} y`, ctx).text).toBe(`x ${expected(env.home, file)} y`);
    });
  }

  it('gives nofile / 0 without a current file', () => {
    const ctx = makeContext(env.home);
    expect(pipelineA('#TRUEFULLPATH# #TRUEFILENAME# #FILESIZE#', ctx).text).toBe('nofile nofile 0');
  });

  it('gives the error variables of the error being handled', () => {
    const ctx = makeContext(env.home, { error: { code: ErrorCode.ConnectionImpossible, message: 'no route' } });
    expect(pipelineA('#ERRORCODE# #ERRORSTRCODE# #ERRORMSG#', ctx).text).toBe('C ConnectionImpossible no route');
  });

  it('leaves host ids unreplaced without authentication and unknown directories as written', () => {
    const ctx = makeContext(env.home);
    ctx.session = { ...ctx.session, remoteHostId: null, localHostId: null, remoteAddress: null, localAddress: null };
    ctx.dirs = { home: env.home };
    expect(pipelineA('#REMOTEHOST# #LOCALHOST# #REMOTEHOSTADDR# #LOCALHOSTADDR# #INPATH#', ctx).text).toBe('#REMOTEHOST# #LOCALHOST# unknown unknown #INPATH#');
  });

  it('leaves record variables unreplaced without a record', () => {
    const ctx = makeContext(env.home, { transfer: null });
    expect(pipelineA('#TRANSFERID# #RULE# %s', ctx).text).toBe('#TRANSFERID# #RULE# %s');
  });

  it('does one left-to-right pass: inserted values are not scanned again', () => {
    const values = new Map([['A', '#B#'], ['B', 'b']]);
    expect(replaceVariables('#A# #B#', values)).toBe('#B# b');
    expect(replaceVariables('#X#B#', values)).toBe('#Xb');
    expect(replaceVariables('50# #A', values)).toBe('50# #A');
  });

  it('computes every variable from the context', () => {
    const { ctx } = ctxWithFile();
    const v = variableValues(ctx);
    expect(v.size).toBeGreaterThanOrEqual(28);
  });
});

describe('Java format (pipeline step A3)', () => {
  it('formats %s, positional and relative arguments, %% and %n', () => {
    expect(javaFormat('a %s b %s', ['1', '2'])).toBe('a 1 b 2');
    expect(javaFormat('%2$s-%1$s %<s', ['x', 'y'])).toBe('y-x x');
    expect(javaFormat('100%% %n', [])).toBe('100% \n');
    expect(javaFormat('[%5s][%-4s][%.2s][%S]', ['ab', 'c', 'xyz', 'up'])).toBe('[   ab][c   ][xy][UP]');
    expect(javaFormat('%b %h', ['x', 'a'])).toBe('true 61');
  });
  it('throws where Java throws', () => {
    expect(() => javaFormat('%d', ['1'])).toThrow(JavaFormatError);
    expect(() => javaFormat('%s %s', ['1'])).toThrow(JavaFormatError);
    expect(() => javaFormat('50%', [])).toThrow(JavaFormatError);
    expect(() => javaFormat('%q', ['1'])).toThrow(JavaFormatError);
    expect(() => javaFormat('%tY', ['1'])).toThrow(JavaFormatError);
  });
  it('splits information like Java split(" ")', () => {
    expect(javaSplitOnSpace('')).toEqual(['']);
    expect(javaSplitOnSpace('a b  ')).toEqual(['a', 'b']);
    expect(javaSplitOnSpace(' a')).toEqual(['', 'a']);
  });
});

describe('pipeline A (tasks.md §5)', () => {
  it('matches the example of §6', () => {
    const ctx = makeContext(env.home);
    expect(pipelineA('send #DATE# #HOUR# %s', ctx).text).toBe('send 20240315 142233 lot42');
  });
  it('normalises white space and removes markers', () => {
    const ctx = makeContext(env.home);
    const r = pipelineA('a\t\n b #NOWAIT#c#LOCALEXEC##COMPRESS#', ctx);
    expect(r).toEqual({ text: 'a b c', noWait: true, localExec: true });
  });
  it('an empty information formats %s as empty', () => {
    const ctx = makeContext(env.home);
    ctx.transfer!.fileInfo = '';
    expect(pipelineA('[%s]', ctx).text).toBe('[]');
  });
  it('keeps the unformatted text when formatting fails', () => {
    const ctx = makeContext(env.home);
    expect(pipelineA('50% of #RULE% %s', ctx).text).toBe('50% of #RULE% %s');
    expect(pipelineA('%s %s %s', ctx).text).toBe('%s %s %s');
  });
  it('substitutes before formatting, so a % in a value is formatted', () => {
    const ctx = makeContext(env.home);
    ctx.transfer!.idRule = 'r%s';
    expect(pipelineA('#RULE#', ctx).text).toBe('rlot42');
  });
  it('normalises the information too', () => {
    const ctx = makeContext(env.home);
    ctx.transfer!.fileInfo = 'a \t b';
    expect(pipelineA('%2$s', ctx).text).toBe('b');
  });
});

describe('command line splitting (Commons Exec semantics)', () => {
  it('splits on spaces and keeps quoted parts together', () => {
    expect(splitCommandLine('prog a "b c" \'d e\' f"g h"i ""')).toEqual(['prog', 'a', 'b c', 'd e', 'fg hi', '']);
    expect(splitCommandLine('  a   b ')).toEqual(['a', 'b']);
  });
  it('refuses unbalanced quotes', () => {
    expect(() => splitCommandLine('a "b')).toThrow(CommandLineError);
  });
});

describe('pipeline B (tasks.md §5)', () => {
  it('formats, splits, then inserts values so a value with spaces stays one word', () => {
    const file = join(env.home, 'in', 'my file; rm -rf x.txt');
    writeFileSync(file, 'x');
    const ctx = makeContext(env.home, { currentFile: file });
    const r = pipelineB('/bin/echo #TRUEFULLPATH# "%s and %2$s" #RULE#', ctx);
    expect(r.words).toEqual(['/bin/echo', file, 'lot42 and extra', 'rule1']);
  });
  it('drops marker words and detects them', () => {
    const ctx = makeContext(env.home);
    const r = pipelineB('prog #NOWAIT# a#COMPRESS#b #LOCALEXEC#', ctx);
    expect(r).toEqual({ words: ['prog', 'ab'], noWait: true, localExec: true });
  });
  it('leaves unknown names as ${NAME}', () => {
    const ctx = makeContext(env.home);
    expect(pipelineB('prog #FOO# #rule#', ctx).words).toEqual(['prog', '${FOO}', '#rule#']);
  });
  it('formats the raw argument (before substitution) and keeps it when formatting fails', () => {
    const ctx = makeContext(env.home);
    ctx.transfer!.idRule = '%s';
    expect(pipelineB('p #RULE# %s', ctx).words).toEqual(['p', '%s', 'lot42']);
    expect(pipelineB('p 10% #RULE#', ctx).words).toEqual(['p', '10%', '%s']);
  });
  it('normalises white space first', () => {
    expect(normalizeSpaces('a\t\tb\n c')).toBe('a b c');
  });
});
