import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../../src/cli/cli-error.js';
import { selectInstance, serverPidFile } from '../../src/cli/instance.js';

let root: string;
let home: string;

function instance(name: string, file = 'server.xml'): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), '<config/>');
  return dir;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-inst-'));
  home = mkdtempSync(join(tmpdir(), 'svc-home-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe('selectInstance (cli.md §1.1)', () => {
  it('takes the first argument when it names an instance, and removes it', () => {
    instance('aaa');
    const b = instance('bbb');
    const s = selectInstance(['bbb', 'start'], 'server', { INSTANCES_CONF: root, HOME: home });
    expect(s.instance.confDir).toBe(b);
    expect(s.instance.name).toBe('bbb');
    expect(s.args).toEqual(['start']);
  });

  it('otherwise uses the first instance in name order and keeps the arguments', () => {
    const a = instance('aaa');
    instance('bbb');
    const s = selectInstance(['start'], 'server', { INSTANCES_CONF: root, HOME: home });
    expect(s.instance.confDir).toBe(a);
    expect(s.args).toEqual(['start']);
  });

  it('only counts directories holding the side\'s file', () => {
    instance('aaa', 'client.xml');
    const b = instance('bbb');
    expect(selectInstance(['status'], 'server', { INSTANCES_CONF: root, HOME: home }).instance.confDir).toBe(b);
    expect(selectInstance(['initdb'], 'client', { INSTANCES_CONF: root, HOME: home }).instance.name).toBe('aaa');
  });

  it('honours CONFDIR and refuses one without the configuration file (exit 2)', () => {
    const a = instance('aaa');
    expect(selectInstance(['start'], 'server', { CONFDIR: a, INSTANCES_CONF: root }).instance.confDir).toBe(a);
    let err: unknown;
    try {
      selectInstance(['start'], 'server', { CONFDIR: join(root, 'nope') });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(2);
    expect((err as CliError).message).toMatch(/nope.*does not exist/);
  });

  it('falls back to the embedded home: -home, then SVC_R66_HOME, then ~/.svc-r66', () => {
    const empty = join(root, 'empty');
    expect(selectInstance(['-home', '/x/y', 'start'], 'server', { INSTANCES_CONF: empty }).instance).toMatchObject({ confDir: '/x/y', embedded: true });
    expect(selectInstance(['start', '--home', '/x/z'], 'server', { INSTANCES_CONF: empty }).args).toEqual(['start']);
    expect(selectInstance(['start'], 'server', { INSTANCES_CONF: empty, SVC_R66_HOME: '/h' }).instance.confDir).toBe('/h');
    const d = selectInstance(['start'], 'server', { INSTANCES_CONF: empty, HOME: home });
    expect(d.instance).toMatchObject({ confDir: join(home, '.svc-r66'), embedded: true, source: 'default home' });
  });

  it('-home wins over installed instances', () => {
    instance('aaa');
    expect(selectInstance(['-home', '/x', 'start'], 'server', { INSTANCES_CONF: root }).instance.confDir).toBe('/x');
  });

  it('reports -home without a value', () => {
    expect(() => selectInstance(['start', '-home'], 'server', {})).toThrow(UsageError);
  });

  it('puts the PID file in PIDFILE, else in the home', () => {
    const s = selectInstance(['start'], 'server', { INSTANCES_CONF: join(root, 'none'), HOME: home });
    expect(serverPidFile(s.instance, {})).toBe(join(home, '.svc-r66', 'r66server.pid'));
    expect(serverPidFile(s.instance, { PIDFILE: '/tmp/x.pid' })).toBe('/tmp/x.pid');
  });
});
