// Renderings of the result object and the transfer options (cli.md §3.1, §3.13).
import { describe, expect, it } from 'vitest';
import { argsField, renderResult, resultObject, ResultFields } from '../../src/cli/r66client/output.js';
import { formatStartTime, parseDelay, parseStartTime, parseTransferArgs } from '../../src/cli/r66client/transfer-args.js';

const sample = (): ResultFields =>
  new ResultFields().set('command', 'DirectTransfer').set('status', 0).set('specialid', 9223372036854775807n).set('info', 'a;b <x> & y\r\nz');

describe('renderResult', () => {
  it('JSON: one line, exact 64-bit numbers, CR/LF replaced by spaces', () => {
    expect(renderResult(sample(), 'json')).toBe('{"command":"DirectTransfer","status":0,"specialid":9223372036854775807,"info":"a;b <x> & y  z"}\n');
  });
  it('JSON: a lone CR or LF replaced too; one field, and none', () => {
    expect(renderResult(new ResultFields().set('a', 'x\ry').set('b', 'x\ny').set('c', true), 'json')).toBe('{"a":"x y","b":"x y","c":true}\n');
    expect(renderResult(new ResultFields().set('only', 1), 'json')).toBe('{"only":1}\n');
    expect(renderResult(new ResultFields(), 'json')).toBe('{}\n');
  });
  it('fields: set replaces a key in place, leaves undefined out; get', () => {
    const f = new ResultFields().set('a', 1).set('b', 'two').set('c', undefined).set('a', 'one');
    expect(f.list()).toEqual([['a', 'one'], ['b', 'two']]);
    expect([f.get('a'), f.get('b'), f.get('c')]).toEqual(['one', 'two', undefined]);
  });
  it('result object: status and statusTxt before the body, after it on a failure, error last', () => {
    const body = new ResultFields().set('error', 'E').set('remote', 'b');
    expect(resultObject('L', 'x ', 0, 'ok', body).list().map(([k]) => k)).toEqual(['command', 'args', 'status', 'statusTxt', 'remote', 'error']);
    expect(resultObject('L', undefined, 2, 'ko', body).list().map(([k]) => k)).toEqual(['command', 'remote', 'status', 'statusTxt', 'error']);
  });
  it('XML: markup characters of values replaced', () => {
    expect(renderResult(sample(), 'xml')).toBe('<xml><command>DirectTransfer</command><status>0</status><specialid>9223372036854775807</specialid><info>a;b [x] : y\r\nz</info></xml>\n');
  });
  it('CSV: keys line, values line, values holding ; quoted', () => {
    expect(renderResult(sample(), 'csv')).toBe('command;status;specialid;info\nDirectTransfer;0;9223372036854775807;"a;b <x> & y  z"\n');
  });
  it('property lines; quiet prints nothing', () => {
    expect(renderResult(sample(), 'property')).toBe('command=DirectTransfer\nstatus=0\nspecialid=9223372036854775807\ninfo=a;b <x> & y  z\n');
    expect(renderResult(sample(), 'quiet')).toBe('');
  });
  it('args: every argument followed by a space, the configuration file first', () => {
    expect(argsField('/c/client.xml', ['-to', 'b'])).toBe('/c/client.xml -to b ');
  });
});

describe('parseTransferArgs', () => {
  it('case-sensitive names; the first plain word ends the options', () => {
    const a = parseTransferArgs(['-to', 'b', '-rule', 'r', '-file', 'f', '-info', 'one', 'two', '-md5'], { multiple: false, command: 'send' });
    expect(a).toMatchObject({ to: ['b'], rule: 'r', files: ['f'], info: 'one', md5: false, format: 'json', logWarn: true });
    expect(() => parseTransferArgs(['-TO', 'b', '-rule', 'r', '-file', 'f'], { multiple: false, command: 'send' })).toThrow(/unknown option/);
  });
  it('lists for msend/masend, -id alone, negative ids', () => {
    expect(parseTransferArgs(['-to', 'b, c', '-rule', 'r', '-file', 'x,y'], { multiple: true, command: 'msend' })).toMatchObject({ to: ['b', 'c'], files: ['x', 'y'] });
    expect(parseTransferArgs(['-to', 'b', '-id', '-42'], { multiple: false, command: 'send' }).id).toBe(-42n);
  });
  it('dates: -start local yyyyMMddHHmmss, -delay +MS or epoch ms', () => {
    expect(formatStartTime(parseStartTime('20240229123456'))).toBe('20240229123456');
    expect(() => parseStartTime('20230229123456')).toThrow();
    expect(parseDelay('+1500', 1000).getTime()).toBe(2500);
    expect(parseDelay('1700000000000', 0).getTime()).toBe(1700000000000);
  });
});
